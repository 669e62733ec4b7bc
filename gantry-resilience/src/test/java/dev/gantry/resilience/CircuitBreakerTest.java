package dev.gantry.resilience;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gantry.resilience.CircuitBreaker.State;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class CircuitBreakerTest {
    private final TestClock clock = new TestClock();
    private final CircuitBreaker breaker = new CircuitBreaker(3, Duration.ofSeconds(30), clock);

    @Test
    void opens_after_the_threshold_of_failures_in_a_row_and_refuses_calls() {
        for (int i = 0; i < 3; i++) {
            assertThat(breaker.tryCall()).isTrue();
            breaker.recordFailure();
        }
        assertThat(breaker.state()).isEqualTo(State.OPEN);
        assertThat(breaker.tryCall()).isFalse();
    }

    @Test
    void a_success_resets_the_count_of_failures() {
        breaker.recordFailure();
        breaker.recordFailure();
        breaker.recordSuccess();
        breaker.recordFailure();

        assertThat(breaker.state()).isEqualTo(State.CLOSED);
    }

    @Test
    void after_open_for_one_probe_goes_and_its_success_closes_the_breaker() {
        open();
        clock.advance(Duration.ofSeconds(30));

        assertThat(breaker.state()).isEqualTo(State.HALF_OPEN);
        assertThat(breaker.tryCall()).as("the probe").isTrue();
        assertThat(breaker.tryCall()).as("only one probe at a time").isFalse();
        breaker.recordSuccess();
        assertThat(breaker.state()).isEqualTo(State.CLOSED);
        assertThat(breaker.tryCall()).isTrue();
    }

    @Test
    void a_failed_probe_opens_the_breaker_for_another_period() {
        open();
        clock.advance(Duration.ofSeconds(30));
        assertThat(breaker.tryCall()).isTrue();
        breaker.recordFailure();

        assertThat(breaker.state()).isEqualTo(State.OPEN);
        clock.advance(Duration.ofSeconds(29));
        assertThat(breaker.tryCall()).isFalse();
        clock.advance(Duration.ofSeconds(1));
        assertThat(breaker.tryCall()).isTrue();
    }

    private void open() {
        for (int i = 0; i < 3; i++) {
            breaker.tryCall();
            breaker.recordFailure();
        }
    }
}
