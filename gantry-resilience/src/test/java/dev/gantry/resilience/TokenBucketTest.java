package dev.gantry.resilience;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class TokenBucketTest {
    private final TestClock clock = new TestClock();

    @Test
    void starts_full_and_admits_its_burst_then_refuses() {
        TokenBucket bucket = new TokenBucket(2, 5, clock);
        assertThat(bucket.tryTake(10)).isEqualTo(5);
        assertThat(bucket.tryTake()).isFalse();
        assertThat(bucket.untilNext()).isEqualTo(Duration.ofMillis(500));
    }

    @Test
    void refills_at_its_rate_up_to_its_burst() {
        TokenBucket bucket = new TokenBucket(2, 5, clock);
        bucket.tryTake(5);
        clock.advance(Duration.ofMillis(1500));
        assertThat(bucket.tryTake(10)).isEqualTo(3);
        clock.advance(Duration.ofHours(1));
        assertThat(bucket.tokens()).isEqualTo(5);
    }

    @Test
    void a_rate_of_zero_admits_nothing_more_and_says_no_token_will_come() {
        TokenBucket bucket = new TokenBucket(10, 1, clock);
        bucket.tryTake();
        bucket.setRate(0, 1);
        clock.advance(Duration.ofMinutes(5));
        assertThat(bucket.tryTake()).isFalse();
        assertThat(bucket.untilNext()).isNull();
    }

    @Test
    void a_new_rate_applies_from_when_it_was_set() {
        TokenBucket bucket = new TokenBucket(1, 100, clock);
        bucket.tryTake(100);
        clock.advance(Duration.ofSeconds(10)); // 10 tokens at the old rate
        bucket.setRate(10, 100);
        clock.advance(Duration.ofSeconds(1)); // 10 more at the new one
        assertThat(bucket.tryTake(100)).isEqualTo(20);
    }

    @Test
    void refuses_a_negative_rate_or_a_burst_below_one() {
        assertThatThrownBy(() -> new TokenBucket(-1, 1, clock)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new TokenBucket(1, 0.5, clock)).isInstanceOf(IllegalArgumentException.class);
    }
}
