package dev.gantry.scheduler.fleet;

import static dev.gantry.scheduler.fleet.Fleets.at;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class TypeAvailabilityTest {
    private static final Duration BASE = Duration.ofMinutes(3);

    @Test
    void a_short_type_rests_for_the_base_period_give_or_take_the_jitter_then_may_be_probed_then_a_launch_clears_it() {
        TypeAvailability shortOf = TypeAvailability.NONE.unavailable("a", "t16", at(0), BASE,
                new SplittableRandom(3));
        Instant until = shortOf.unavailableUntil("a", "t16").orElseThrow();

        assertThat(until).isBetween(at(0).plus(BASE.multipliedBy(80).dividedBy(100)),
                at(0).plus(BASE.multipliedBy(120).dividedBy(100)));
        assertThat(shortOf.state("a", "t16", until.minusMillis(1))).isEqualTo(TypeAvailability.State.UNAVAILABLE);
        assertThat(shortOf.state("a", "t16", until)).isEqualTo(TypeAvailability.State.PROBE);
        assertThat(shortOf.state("b", "t16", at(0))).isEqualTo(TypeAvailability.State.AVAILABLE);
        assertThat(shortOf.launched("a", "t16").state("a", "t16", at(1)))
                .isEqualTo(TypeAvailability.State.AVAILABLE);
    }

    @Test
    void the_jitter_spreads_re_probes_and_is_the_same_for_the_same_seed() {
        Set<Instant> ends = new HashSet<>();
        SplittableRandom random = new SplittableRandom(11);
        for (int i = 0; i < 20; i++) {
            ends.add(TypeAvailability.NONE.unavailable("a", "t", at(0), BASE, random)
                    .unavailableUntil("a", "t").orElseThrow());
        }
        assertThat(ends).hasSizeGreaterThan(15);

        Instant once = TypeAvailability.NONE.unavailable("a", "t", at(0), BASE, new SplittableRandom(5))
                .unavailableUntil("a", "t").orElseThrow();
        Instant again = TypeAvailability.NONE.unavailable("a", "t", at(0), BASE, new SplittableRandom(5))
                .unavailableUntil("a", "t").orElseThrow();
        assertThat(once).isEqualTo(again);
    }
}
