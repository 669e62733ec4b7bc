package dev.gantry.agent.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class QuickCallTimeoutTest {
    @Test
    void a_quick_call_waits_a_third_of_the_lease_between_one_and_thirty_seconds() {
        assertThat(HttpAgentServer.quickCallTimeout(Duration.ofSeconds(30))).isEqualTo(Duration.ofSeconds(10));
        assertThat(HttpAgentServer.quickCallTimeout(Duration.ofSeconds(9))).isEqualTo(Duration.ofSeconds(3));
        assertThat(HttpAgentServer.quickCallTimeout(Duration.ofSeconds(2))).isEqualTo(Duration.ofSeconds(1));
        assertThat(HttpAgentServer.quickCallTimeout(Duration.ofMinutes(10))).isEqualTo(Duration.ofSeconds(30));
    }
}
