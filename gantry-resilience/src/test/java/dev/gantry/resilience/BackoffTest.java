package dev.gantry.resilience;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

class BackoffTest {
    private final Backoff backoff = new Backoff(Duration.ofMillis(100), Duration.ofSeconds(10));

    @Property
    void a_delay_is_never_negative_nor_above_its_capped_ceiling(@ForAll @IntRange(min = 1, max = 200) int retry,
                                                                @ForAll long seed) {
        Duration delay = backoff.delay(retry, new SplittableRandom(seed));

        assertThat(delay).isGreaterThanOrEqualTo(Duration.ZERO).isLessThanOrEqualTo(backoff.ceiling(retry));
        assertThat(backoff.ceiling(retry)).isLessThanOrEqualTo(Duration.ofSeconds(10));
    }

    @Property
    void the_ceiling_doubles_until_the_cap(@ForAll @IntRange(min = 1, max = 60) int retry,
                                           @ForAll @LongRange(min = 1, max = 10_000) long baseMillis) {
        Backoff b = new Backoff(Duration.ofMillis(baseMillis), Duration.ofMinutes(5));
        long next = b.ceiling(retry + 1).toMillis();
        long now = b.ceiling(retry).toMillis();

        assertThat(next).isEqualTo(Math.min(2 * now, Duration.ofMinutes(5).toMillis()));
    }

    @org.junit.jupiter.api.Test
    void the_first_ceilings_are_base_then_double() {
        assertThat(backoff.ceiling(1)).isEqualTo(Duration.ofMillis(100));
        assertThat(backoff.ceiling(2)).isEqualTo(Duration.ofMillis(200));
        assertThat(backoff.ceiling(8)).isEqualTo(Duration.ofMillis(10_000));
        assertThat(backoff.ceiling(1000)).isEqualTo(Duration.ofMillis(10_000));
    }

    @org.junit.jupiter.api.Test
    void full_jitter_spreads_delays_over_the_whole_range() {
        SplittableRandom random = new SplittableRandom(1);
        long below = 0;
        for (int i = 0; i < 1000; i++) {
            if (backoff.delay(8, random).toMillis() < 5_000) {
                below++;
            }
        }
        assertThat(below).isBetween(400L, 600L);
    }

    @org.junit.jupiter.api.Test
    void a_cap_below_the_base_is_refused() {
        assertThatThrownBy(() -> new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
