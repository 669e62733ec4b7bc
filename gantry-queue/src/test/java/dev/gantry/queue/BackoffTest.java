package dev.gantry.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

class BackoffTest {
    private static final Duration BASE = Duration.ofSeconds(1);
    private static final Duration CAP = Duration.ofSeconds(30);

    @Test
    void each_retry_waits_somewhere_between_zero_and_the_doubled_ceiling() {
        RandomGenerator random = RandomGenerator.of("L64X128MixRandom");
        for (int retry = 1; retry <= 10; retry++) {
            long ceiling = Math.min(CAP.toMillis(), BASE.toMillis() << (retry - 1));
            for (int i = 0; i < 200; i++) {
                assertThat(Backoff.delay(retry, BASE, CAP, random).toMillis()).isBetween(0L, ceiling);
            }
        }
    }

    @Test
    void the_jitter_spreads_over_the_whole_window() {
        RandomGenerator random = RandomGenerator.of("L64X128MixRandom");
        long below = 0;
        long above = 0;
        for (int i = 0; i < 2_000; i++) {
            long ms = Backoff.delay(5, BASE, CAP, random).toMillis(); // window [0, 16 s]
            below += ms < 4_000 ? 1 : 0;
            above += ms > 12_000 ? 1 : 0;
        }
        assertThat(below).isBetween(350L, 650L);
        assertThat(above).isBetween(350L, 650L);
    }

    @Test
    void huge_retry_numbers_stay_at_the_cap() {
        RandomGenerator random = RandomGenerator.of("L64X128MixRandom");
        assertThat(Backoff.delay(1_000, BASE, CAP, random)).isLessThanOrEqualTo(CAP);
        assertThat(Backoff.delay(63, BASE, CAP, random)).isLessThanOrEqualTo(CAP);
    }

    @Test
    void retries_count_from_one() {
        assertThatThrownBy(() -> Backoff.delay(0, BASE, CAP, RandomGenerator.getDefault()))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void settings_name_the_rule_they_break() {
        assertThatThrownBy(() -> QueueSettings.defaults().withLease(Duration.ZERO))
                .hasMessageContaining("lease must be a positive duration");
        assertThatThrownBy(() -> QueueSettings.defaults().withRetry(Duration.ofMinutes(5), Duration.ofSeconds(1)))
                .hasMessageContaining("retryCap");
    }
}
