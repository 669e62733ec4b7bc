package dev.gantry.notify;

import dev.gantry.resilience.Backoff;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.random.RandomGenerator;

/**
 * When a failed delivery is tried again: capped exponential backoff with full jitter ({@link Backoff}) after each
 * failed attempt, for as long as the retry window lasts from the delivery's first attempt (24 h by default, as
 * GitHub and Svix keep trying for about a day); after that the delivery is dead with its reason. Waiting for a
 * destination's guard (an open circuit, a full bulkhead) spends no attempt but does use up the window. Pure.
 */
public record RetrySchedule(Backoff backoff, Duration window) {
    public static final Backoff DEFAULT_BACKOFF = new Backoff(Duration.ofSeconds(5), Duration.ofHours(1));
    public static final Duration DEFAULT_WINDOW = Duration.ofHours(24);
    public static final RetrySchedule DEFAULT = new RetrySchedule(DEFAULT_BACKOFF, DEFAULT_WINDOW);

    public RetrySchedule {
        if (window.isNegative() || window.isZero()) {
            throw new IllegalArgumentException("the retry window must be positive, got " + window);
        }
    }

    /**
     * When to try again after {@code failedAttempts} failed attempts (1 or more) of a delivery whose window began at
     * {@code windowStart}; empty when that would be past the window, and the delivery is then dead.
     */
    public Optional<Instant> nextAttempt(int failedAttempts, Instant windowStart, Instant now,
                                         RandomGenerator random) {
        return within(now.plus(backoff.delay(failedAttempts, random)), windowStart);
    }

    /** {@code at} if it is within the window that began at {@code windowStart}, else empty. */
    public Optional<Instant> within(Instant at, Instant windowStart) {
        return at.isAfter(windowStart.plus(window)) ? Optional.empty() : Optional.of(at);
    }
}
