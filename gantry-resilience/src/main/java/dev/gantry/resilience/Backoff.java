package dev.gantry.resilience;

import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * Capped exponential backoff with full jitter: the delay before retry {@code n} (1-based) is uniform in
 * {@code [0, min(cap, base × 2^(n-1))]}. Full jitter spreads retries of clients that failed together, so they do not
 * return together (the retry storm of October 9). An immutable value.
 *
 * @param base the ceiling of the first retry's delay
 * @param cap  the largest ceiling
 */
public record Backoff(Duration base, Duration cap) {
    public Backoff {
        if (base.isNegative() || base.isZero() || cap.compareTo(base) < 0) {
            throw new IllegalArgumentException("backoff needs 0 < base <= cap, got base " + base + ", cap " + cap);
        }
    }

    /** The ceiling of retry {@code retry}'s delay: {@code min(cap, base × 2^(retry-1))}. */
    public Duration ceiling(int retry) {
        if (retry < 1) {
            throw new IllegalArgumentException("retries count from 1, got " + retry);
        }
        // Past 2^30 any base is beyond a sane cap; stop doubling before the multiplication overflows.
        long factor = 1L << Math.min(retry - 1, 30);
        long millis = base.toMillis() > cap.toMillis() / factor ? cap.toMillis() : base.toMillis() * factor;
        return Duration.ofMillis(Math.min(millis, cap.toMillis()));
    }

    /** The delay before retry {@code retry}, drawn from {@code random}. */
    public Duration delay(int retry, RandomGenerator random) {
        long ceiling = ceiling(retry).toMillis();
        return Duration.ofMillis(random.nextLong(ceiling + 1));
    }
}
