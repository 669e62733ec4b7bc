package dev.gantry.server.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gantry.server.InvalidServerSettingException;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class AgentSettingsTest {
    @Test
    void without_variables_the_protocols_defaults_hold() {
        AgentSettings settings = AgentSettings.fromEnvironment(Map.of());

        assertThat(settings).isEqualTo(AgentSettings.defaults());
        assertThat(settings.heartbeatInterval()).isEqualTo(Duration.ofSeconds(2));
        assertThat(settings.leaseTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(settings.pollTimeout()).isEqualTo(Duration.ofSeconds(25));
    }

    @Test
    void durations_read_as_ms_s_m_or_iso() {
        AgentSettings settings = AgentSettings.fromEnvironment(Map.of(
                "GANTRY_AGENT_HEARTBEAT_INTERVAL", "500ms",
                "GANTRY_AGENT_LEASE_TIMEOUT", "2m",
                "GANTRY_AGENT_POLL_TIMEOUT", "PT10S"));

        assertThat(settings).isEqualTo(new AgentSettings(Duration.ofMillis(500), Duration.ofMinutes(2),
                Duration.ofSeconds(10)));
    }

    @ParameterizedTest
    @ValueSource(strings = {"soon", "10", "-5s", "10h", "0ms"})
    void a_bad_duration_names_the_variable_and_the_rule(String value) {
        assertThatThrownBy(() -> AgentSettings.fromEnvironment(Map.of("GANTRY_AGENT_POLL_TIMEOUT", value)))
                .isInstanceOf(InvalidServerSettingException.class)
                .hasMessage("GANTRY_AGENT_POLL_TIMEOUT must be a duration like 500ms, 5s or 2m, from 100ms to 5m, got '"
                        + value + "'");
    }

    @Test
    void an_empty_variable_is_an_error_not_the_default() {
        assertThatThrownBy(() -> AgentSettings.fromEnvironment(Map.of("GANTRY_AGENT_LEASE_TIMEOUT", "")))
                .isInstanceOf(InvalidServerSettingException.class).hasMessageContaining("empty");
    }

    @Test
    void a_lease_shorter_than_two_heartbeats_is_refused() {
        assertThatThrownBy(() -> AgentSettings.fromEnvironment(Map.of("GANTRY_AGENT_HEARTBEAT_INTERVAL", "10s",
                "GANTRY_AGENT_LEASE_TIMEOUT", "15s")))
                .isInstanceOf(InvalidServerSettingException.class)
                .hasMessageContaining("at least twice the heartbeat interval");
        assertThatThrownBy(() -> AgentSettings.defaults().withLeaseTimeout(Duration.ofSeconds(3)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void tests_can_shorten_the_lease_in_code() {
        AgentSettings quick = AgentSettings.defaults().withHeartbeatInterval(Duration.ofMillis(100))
                .withLeaseTimeout(Duration.ofMillis(500));

        assertThat(quick.leaseTimeout()).isEqualTo(Duration.ofMillis(500));
    }
}
