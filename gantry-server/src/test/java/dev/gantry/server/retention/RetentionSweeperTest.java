package dev.gantry.server.retention;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RetentionSweeperTest {
    @Test
    void the_log_says_a_retention_in_the_largest_unit_that_fits_it() {
        assertThat(RetentionSweeper.words(Duration.ofDays(15))).isEqualTo("15d");
        assertThat(RetentionSweeper.words(Duration.ofHours(36))).isEqualTo("36h");
        assertThat(RetentionSweeper.words(Duration.ofMinutes(90))).isEqualTo("90m");
    }
}
