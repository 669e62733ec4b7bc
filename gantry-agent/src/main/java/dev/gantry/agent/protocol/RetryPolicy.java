package dev.gantry.agent.protocol;

import dev.gantry.resilience.Backoff;
import dev.gantry.resilience.RetryBudget;
import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * Capped exponential backoff with full jitter: before retry {@code n} (0-based) wait a uniformly random time in
 * {@code [0, min(cap, initial * 2^n)]}, but at least what the server asked for in {@code Retry-After}; give up once
 * {@code giveUpAfter} has passed since the first attempt. Jitter spreads the retries of many agents that lost the
 * server at the same moment. Immutable and thread-safe.
 *
 * @param giveUpAfter how long one call keeps retrying; the default matches the default lease timeout, after which a
 *                    task is lost anyway
 */
public record RetryPolicy(Duration initial, Duration cap, Duration giveUpAfter) {
    /** 200 ms, doubling up to 10 s, for at most 30 s. */
    public static final RetryPolicy DEFAULT =
            new RetryPolicy(Duration.ofMillis(200), Duration.ofSeconds(10), Duration.ofSeconds(30));
    /** A server's Retry-After above this is not believed: the agent checks back sooner. */
    static final Duration MAX_RETRY_AFTER = Duration.ofMinutes(1);

    public RetryPolicy {
        if (initial.isNegative() || initial.isZero() || cap.compareTo(initial) < 0 || giveUpAfter.isNegative()) {
            throw new IllegalArgumentException("retry policy needs 0 < initial <= cap and giveUpAfter >= 0, got "
                    + initial + ", " + cap + ", " + giveUpAfter);
        }
    }

    /** The wait before retry number {@code attempt} (0 for the first retry). */
    public Duration delay(int attempt, Duration retryAfter, RandomGenerator random) {
        long jittered = new Backoff(initial, cap).delay(attempt + 1, random).toMillis();
        long floor = retryAfter == null ? 0 : Math.min(retryAfter.toMillis(), MAX_RETRY_AFTER.toMillis());
        return Duration.ofMillis(Math.max(jittered, floor));
    }

    /**
     * The wait before a retry the {@link RetryBudget} refused: between half the cap and the cap, so retries beyond
     * the budget go at the slowest pace whatever their attempt number, still jittered; at least {@code Retry-After}.
     */
    public Duration delayOverBudget(Duration retryAfter, RandomGenerator random) {
        long half = cap.toMillis() / 2;
        long jittered = half + random.nextLong(cap.toMillis() - half + 1);
        long floor = retryAfter == null ? 0 : Math.min(retryAfter.toMillis(), MAX_RETRY_AFTER.toMillis());
        return Duration.ofMillis(Math.max(jittered, floor));
    }
}
