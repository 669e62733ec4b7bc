package dev.gantry.agent.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class HeartbeatTimeoutTest {
    @Test
    void a_heartbeat_waits_a_third_of_the_lease_between_one_and_thirty_seconds() {
        assertThat(HttpAgentServer.heartbeatTimeout(Duration.ofSeconds(30))).isEqualTo(Duration.ofSeconds(10));
        assertThat(HttpAgentServer.heartbeatTimeout(Duration.ofSeconds(9))).isEqualTo(Duration.ofSeconds(3));
        assertThat(HttpAgentServer.heartbeatTimeout(Duration.ofSeconds(2))).isEqualTo(Duration.ofSeconds(1));
        assertThat(HttpAgentServer.heartbeatTimeout(Duration.ofMinutes(10))).isEqualTo(Duration.ofSeconds(30));
    }
}
