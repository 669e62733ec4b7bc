package dev.gantry.agent.executor.docker;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.dockerjava.api.model.Version;
import org.junit.jupiter.api.Test;

/** Telling the engines apart by their {@code /version} answers (abridged from Podman 4.3.1's and Docker 20.10's). */
class EngineTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void podman_names_itself_among_the_components_and_docker_does_not() throws Exception {
        Version podman = JSON.readValue("{\"Components\": [{\"Name\": \"Podman Engine\", \"Version\": \"4.3.1\"}],"
                + " \"Version\": \"4.3.1\", \"ApiVersion\": \"1.41\"}", Version.class);
        Version docker = JSON.readValue("{\"Components\": [{\"Name\": \"Engine\", \"Version\": \"20.10.24+dfsg1\"},"
                + " {\"Name\": \"containerd\"}, {\"Name\": \"runc\"}, {\"Name\": \"docker-init\"}],"
                + " \"Version\": \"20.10.24+dfsg1\", \"ApiVersion\": \"1.41\"}", Version.class);
        Version bare = JSON.readValue("{\"Version\": \"19.03\"}", Version.class);

        assertThat(Engine.of(podman)).isEqualTo(Engine.PODMAN);
        assertThat(Engine.of(docker)).isEqualTo(Engine.DOCKER);
        assertThat(Engine.of(bare)).isEqualTo(Engine.DOCKER);
    }

    @Test
    void on_docker_the_primary_names_the_machine_as_podman_does_and_as_docker_desktop_does() {
        assertThat(Engine.DOCKER.hostNames()).containsExactly("host.containers.internal:host-gateway",
                "host.docker.internal:host-gateway");
        assertThat(Engine.PODMAN.hostNames()).as("Podman writes host.containers.internal itself").isEmpty();
    }
}
