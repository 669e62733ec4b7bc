package dev.gantry.server.admission;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class RateLimiterTest {
    private Instant now = Instant.parse("2026-10-09T11:15:00Z");
    private final RateLimiter limiter = new RateLimiter(() -> now);
    private final RateLimiter.Limit limit = new RateLimiter.Limit(2, 3);

    @Test
    void a_caller_gets_its_burst_then_is_told_when_to_come_back() {
        for (int i = 0; i < 3; i++) {
            assertThat(limiter.admit("token:a", limit)).isEmpty();
        }
        assertThat(limiter.admit("token:a", limit)).contains(Duration.ofMillis(500));
    }

    @Test
    void one_callers_flood_leaves_another_caller_unaffected() {
        for (int i = 0; i < 10; i++) {
            limiter.admit("token:a", limit);
        }
        assertThat(limiter.admit("token:b", limit)).isEmpty();
    }

    @Test
    void tokens_come_back_at_the_rate() {
        for (int i = 0; i < 3; i++) {
            limiter.admit("token:a", limit);
        }
        now = now.plus(Duration.ofSeconds(1));
        assertThat(limiter.admit("token:a", limit)).isEmpty();
        assertThat(limiter.admit("token:a", limit)).isEmpty();
        assertThat(limiter.admit("token:a", limit)).isPresent();
    }

    @Test
    void idle_callers_are_forgotten_so_addresses_seen_once_do_not_pile_up() {
        for (int i = 0; i < RateLimiter.SWEEP_EVERY - 1; i++) {
            limiter.admit("address:" + i, limit);
        }
        now = now.plus(Duration.ofMinutes(1));
        limiter.admit("address:new", limit);
        assertThat(limiter.callers()).isEqualTo(1);
    }
}
