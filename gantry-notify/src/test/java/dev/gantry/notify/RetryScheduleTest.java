package dev.gantry.notify;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class RetryScheduleTest {
    final Instant start = Instant.parse("2026-12-10T10:00:00Z");

    @Test
    void retries_back_off_with_jitter_under_the_cap_and_stop_at_the_end_of_the_window() {
        RetrySchedule schedule = RetrySchedule.DEFAULT;
        SplittableRandom random = new SplittableRandom(1);
        Instant now = start;
        int attempts = 1;
        while (true) {
            var next = schedule.nextAttempt(attempts, start, now, random);
            if (next.isEmpty()) {
                break;
            }
            assertThat(Duration.between(now, next.get())).isLessThanOrEqualTo(Duration.ofHours(1));
            now = next.get();
            attempts++;
        }
        assertThat(now).isBefore(start.plus(Duration.ofHours(24)).plusSeconds(1));
        assertThat(now).isAfter(start.plus(Duration.ofHours(22)));
        assertThat(attempts).isBetween(30, 80);
    }
}
