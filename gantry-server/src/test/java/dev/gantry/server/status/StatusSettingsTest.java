package dev.gantry.server.status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gantry.server.InvalidServerSettingException;
import dev.gantry.server.ServerSettings;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StatusSettingsTest {
    @Test
    void by_default_the_page_evaluates_every_10_s_over_5_and_60_minutes_against_2_and_1_minute_objectives() {
        StatusSettings defaults = ServerSettings.fromEnvironment(Map.of()).status();

        assertThat(defaults).isEqualTo(StatusSettings.defaults());
        assertThat(defaults.evaluateEvery()).isEqualTo(Duration.ofSeconds(10));
        assertThat(defaults.shortWindow()).isEqualTo(Duration.ofMinutes(5));
        assertThat(defaults.longWindow()).isEqualTo(Duration.ofMinutes(60));
        assertThat(defaults.jobStartObjective()).isEqualTo(Duration.ofMinutes(2));
        assertThat(defaults.planObjective()).isEqualTo(Duration.ofMinutes(1));
    }

    @Test
    void each_setting_comes_from_its_variable() {
        StatusSettings settings = StatusSettings.fromEnvironment(Map.of("GANTRY_STATUS_EVALUATE_EVERY", "500ms",
                "GANTRY_STATUS_SHORT_WINDOW", "10s", "GANTRY_STATUS_LONG_WINDOW", "1m",
                "GANTRY_STATUS_JOB_START_OBJECTIVE", "5m", "GANTRY_STATUS_PLAN_OBJECTIVE", "30s"));

        assertThat(settings).isEqualTo(new StatusSettings(Duration.ofMillis(500), Duration.ofSeconds(10),
                Duration.ofMinutes(1), Duration.ofMinutes(5), Duration.ofSeconds(30)));
    }

    @Test
    void a_bad_value_names_its_variable_and_windows_out_of_order_are_refused() {
        assertThatThrownBy(() -> StatusSettings.fromEnvironment(Map.of("GANTRY_STATUS_SHORT_WINDOW", "soon")))
                .isInstanceOf(InvalidServerSettingException.class)
                .hasMessage("GANTRY_STATUS_SHORT_WINDOW must be a duration like 5m or 1h, from 1s to 1d, got 'soon'");
        assertThatThrownBy(() -> StatusSettings.fromEnvironment(Map.of("GANTRY_STATUS_JOB_START_OBJECTIVE", "")))
                .isInstanceOf(InvalidServerSettingException.class).hasMessageContaining("empty");
        assertThatThrownBy(() -> StatusSettings.fromEnvironment(Map.of("GANTRY_STATUS_SHORT_WINDOW", "2h")))
                .isInstanceOf(InvalidServerSettingException.class)
                .hasMessageContaining(StatusSettings.ORDER_RULE).hasMessageContaining("windows 2h and 1h");
    }
}
