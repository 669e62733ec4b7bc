package dev.gantry.agent.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {
    static final RetryPolicy POLICY = new RetryPolicy(Duration.ofMillis(100), Duration.ofSeconds(2), Duration.ofSeconds(30));

    @Test
    void delays_are_full_jitter_under_a_doubling_ceiling_that_stops_at_the_cap() {
        SplittableRandom random = new SplittableRandom(7);
        for (int attempt = 0; attempt < 40; attempt++) {
            long ceiling = Math.min(2000, 100L << Math.min(attempt, 20));
            for (int i = 0; i < 200; i++) {
                assertThat(POLICY.delay(attempt, null, random).toMillis()).isBetween(0L, ceiling);
            }
        }
    }

    @Test
    void jitter_spreads_delays_over_the_whole_range() {
        SplittableRandom random = new SplittableRandom(1);
        long min = Long.MAX_VALUE;
        long max = 0;
        for (int i = 0; i < 1000; i++) {
            long d = POLICY.delay(10, null, random).toMillis();
            min = Math.min(min, d);
            max = Math.max(max, d);
        }
        assertThat(min).isLessThan(200);
        assertThat(max).isGreaterThan(1800);
    }

    @Test
    void retry_after_is_a_floor_but_is_not_believed_beyond_a_minute() {
        SplittableRandom random = new SplittableRandom(3);
        assertThat(POLICY.delay(0, Duration.ofSeconds(5), random)).isEqualTo(Duration.ofSeconds(5));
        assertThat(POLICY.delay(0, Duration.ofHours(1), random)).isEqualTo(RetryPolicy.MAX_RETRY_AFTER);
    }

    @Test
    void a_retry_over_budget_waits_between_half_the_cap_and_the_cap_and_at_least_retry_after() {
        SplittableRandom random = new SplittableRandom(5);
        for (int i = 0; i < 1000; i++) {
            assertThat(POLICY.delayOverBudget(null, random).toMillis()).isBetween(1000L, 2000L);
        }
        assertThat(POLICY.delayOverBudget(Duration.ofSeconds(5), random)).isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void a_policy_whose_cap_is_below_its_start_is_refused() {
        assertThatThrownBy(() -> new RetryPolicy(Duration.ofSeconds(2), Duration.ofSeconds(1), Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("initial <= cap");
    }

    @Test
    void server_errors_and_throttling_are_retried_client_errors_are_not() {
        assertThat(HttpCalls.retryable(503)).isTrue();
        assertThat(HttpCalls.retryable(500)).isTrue();
        assertThat(HttpCalls.retryable(429)).isTrue();
        assertThat(HttpCalls.retryable(409)).isFalse();
        assertThat(HttpCalls.retryable(404)).isFalse();
        assertThat(HttpCalls.retryable(400)).isFalse();
    }
}
