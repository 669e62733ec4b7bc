package dev.gantry.db;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.random.RandomGenerator;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RestartBackoffTest {
    @Test
    void the_default_ceiling_doubles_from_half_a_second_and_stops_at_ten_seconds() {
        assertThat(IntStream.rangeClosed(1, 8).mapToObj(RestartBackoff.DEFAULT::ceiling).map(Duration::toMillis))
                .containsExactly(500L, 1_000L, 2_000L, 4_000L, 8_000L, 10_000L, 10_000L, 10_000L);
        assertThat(RestartBackoff.DEFAULT.ceiling(Integer.MAX_VALUE)).as("no overflow").hasSeconds(10);
    }

    @Test
    void a_delay_is_drawn_from_zero_to_the_ceiling_inclusive() {
        assertThat(RestartBackoff.DEFAULT.delay(3, drawing(Draw.HIGHEST))).hasMillis(2_000);
        assertThat(RestartBackoff.DEFAULT.delay(3, drawing(Draw.LOWEST))).isZero();
        RandomGenerator random = RandomGenerator.of("L64X128MixRandom");
        List<Duration> delays = IntStream.range(0, 1_000).mapToObj(i -> RestartBackoff.DEFAULT.delay(6, random))
                .toList();
        assertThat(delays).allSatisfy(delay -> assertThat(delay).isBetween(Duration.ZERO, Duration.ofSeconds(10)));
        assertThat(delays.stream().distinct().count()).as("spread out, not one value").isGreaterThan(500);
    }

    @Test
    void a_base_above_the_cap_or_failures_counted_from_zero_are_refused() {
        assertThatThrownBy(() -> new RestartBackoff(Duration.ofSeconds(2), Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RestartBackoff(Duration.ZERO, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RestartBackoff.DEFAULT.ceiling(0)).isInstanceOf(IllegalArgumentException.class);
    }

    private enum Draw { LOWEST, HIGHEST }

    /** A generator whose bounded draws are always the lowest or the highest value allowed. */
    private static RandomGenerator drawing(Draw draw) {
        return new RandomGenerator() {
            @Override
            public long nextLong() {
                throw new UnsupportedOperationException("only bounded draws");
            }

            @Override
            public long nextLong(long bound) {
                return draw == Draw.HIGHEST ? bound - 1 : 0;
            }
        };
    }
}
