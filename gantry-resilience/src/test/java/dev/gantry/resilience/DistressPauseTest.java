package dev.gantry.resilience;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DistressPauseTest {
    private final TestClock clock = new TestClock();
    private final DistressPause pause = new DistressPause(new DistressPause.Settings(Duration.ofSeconds(1),
            Duration.ofMinutes(2), 0.1, Duration.ofMinutes(10)), clock);

    @Test
    void healthy_writes_leave_work_at_full_rate() {
        pause.recordWrite(true, Duration.ofMillis(20));

        assertThat(pause.paused()).isFalse();
        assertThat(pause.allowedFraction()).isEqualTo(1);
    }

    @Test
    void a_failed_write_pauses_work_until_writes_have_been_healthy_for_the_quiet_period() {
        pause.recordWrite(false, Duration.ZERO);

        assertThat(pause.paused()).isTrue();
        assertThat(pause.allowedFraction()).isZero();
        clock.advance(Duration.ofSeconds(119));
        assertThat(pause.paused()).isTrue();
        clock.advance(Duration.ofSeconds(1));
        assertThat(pause.paused()).isFalse();
        assertThat(pause.pauses()).isEqualTo(1);
    }

    @Test
    void a_slow_write_is_distress_too() {
        pause.recordWrite(true, Duration.ofMillis(1001));

        assertThat(pause.paused()).isTrue();
    }

    @Test
    void work_resumes_at_the_ramps_start_and_rises_linearly_to_full() {
        pause.recordWrite(false, Duration.ZERO);
        clock.advance(Duration.ofMinutes(2));

        assertThat(pause.allowedFraction()).isCloseTo(0.1, within(1e-9));
        clock.advance(Duration.ofMinutes(5));
        assertThat(pause.allowedFraction()).isCloseTo(0.55, within(1e-9));
        clock.advance(Duration.ofMinutes(5));
        assertThat(pause.allowedFraction()).isEqualTo(1);
    }

    @Test
    void distress_during_the_ramp_pauses_again() {
        pause.recordWrite(false, Duration.ZERO);
        clock.advance(Duration.ofMinutes(3));
        pause.recordWrite(false, Duration.ZERO);

        assertThat(pause.allowedFraction()).isZero();
        assertThat(pause.pauses()).isEqualTo(2);
    }

    @Test
    void distress_seen_outside_a_write_pauses_as_a_failed_write_does() {
        pause.recordDistress();

        assertThat(pause.paused()).isTrue();
        assertThat(pause.pauses()).isEqualTo(1);
    }

    @Test
    void a_new_ramp_applies_to_the_pause_under_way() {
        pause.recordDistress();
        pause.setSettings(new DistressPause.Settings(Duration.ofSeconds(1), Duration.ofMinutes(2), 0.5,
                Duration.ofMinutes(10)));
        clock.advance(Duration.ofMinutes(7));

        assertThat(pause.allowedFraction()).isCloseTo(0.75, within(1e-9));
    }
}
