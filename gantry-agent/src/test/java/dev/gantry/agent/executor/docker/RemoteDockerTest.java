package dev.gantry.agent.executor.docker;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** The sidecar's create options per engine, as they go over the wire (ContainerExecutorIT runs them for real). */
class RemoteDockerTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void on_podman_the_sidecar_gets_a_user_namespace_of_its_own_and_unmask() {
        JsonNode host = JSON.valueToTree(RemoteDocker.hostConfig(Engine.PODMAN, "p1", 512));

        assertThat(host.path("UsernsMode").asText()).isEqualTo("auto:size=1065536");
        assertThat(host.path("SecurityOpt").toString()).isEqualTo("[\"unmask=ALL\"]");
        assertThat(host.has("MaskedPaths")).isFalse();
        assertThat(host.path("NetworkMode").asText()).isEqualTo("container:p1");
        assertThat(host.path("Memory").asLong()).isEqualTo(512L * 1024 * 1024);
    }

    @Test
    void on_docker_the_sidecar_gets_no_masked_paths_and_podman_s_seccomp_profile_not_unmask() throws Exception {
        JsonNode host = JSON.valueToTree(RemoteDocker.hostConfig(Engine.DOCKER, "p1", 0));

        assertThat(host.path("UsernsMode").isNull() || host.path("UsernsMode").isMissingNode()).isTrue();
        assertThat(host.path("MaskedPaths").isArray()).isTrue();
        assertThat(host.path("MaskedPaths")).isEmpty();
        assertThat(host.path("ReadonlyPaths").isArray()).isTrue();
        assertThat(host.path("ReadonlyPaths")).isEmpty();
        assertThat(host.path("SecurityOpt")).hasSize(1);
        String option = host.path("SecurityOpt").get(0).asText();
        assertThat(option).startsWith("seccomp={");
        JsonNode profile = JSON.readTree(option.substring("seccomp=".length()));
        assertThat(profile.path("defaultAction").asText()).isEqualTo("SCMP_ACT_ERRNO");
        assertThat(profile.path("syscalls").toString()).contains("\"unshare\"", "\"mount\"");
        assertThat(host.path("CapDrop")).hasSize(11);
        assertThat(host.path("Devices").get(0).path("PathOnHost").asText()).isEqualTo("/dev/net/tun");
        assertThat(host.path("PidsLimit").asLong()).isEqualTo(4096);
        assertThat(host.path("NetworkMode").asText()).isEqualTo("container:p1");
    }
}
