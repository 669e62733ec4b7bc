package dev.gantry.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DurationSettingTest {
    @Test
    void a_duration_is_written_in_the_largest_unit_that_says_it_exactly() {
        assertThat(DurationSetting.format(Duration.ofDays(15))).isEqualTo("15d");
        assertThat(DurationSetting.format(Duration.ofHours(36))).isEqualTo("36h");
        assertThat(DurationSetting.format(Duration.ofMinutes(90))).isEqualTo("90m");
        assertThat(DurationSetting.format(Duration.ofSeconds(30))).isEqualTo("30s");
        assertThat(DurationSetting.format(Duration.ofMillis(250))).isEqualTo("250ms");
        assertThat(DurationSetting.format(Duration.ZERO)).isEqualTo("0ms");
    }
}
