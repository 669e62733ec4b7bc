package dev.gantry.agent.executor;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HostSandboxTest {
    @Test
    void the_host_shell_passes_the_agent_s_environment_on_without_its_own_gantry_settings() {
        SandboxRequest request = new SandboxRequest("job-1-0", Path.of("/w/t"), null, 0, 0,
                Map.of("PATH", "/usr/bin", "LANG", "C.UTF-8", "GANTRY_AGENT_TOKEN", "gnt_agent_secret",
                        "GANTRY_HOME", "/root/.gantry"), Map.of());

        Map<String, String> base = new HostSandbox(Path.of("/w/t/home"), request, Duration.ZERO).baseEnvironment();

        assertThat(base).containsEntry("PATH", "/usr/bin:/w/t/bin").containsEntry("LANG", "C.UTF-8")
                .doesNotContainKeys("GANTRY_AGENT_TOKEN", "GANTRY_HOME");
    }
}
