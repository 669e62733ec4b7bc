package dev.gantry.sim;

import java.time.Duration;
import java.util.Optional;

/**
 * The baseline's retries, as many clients and job runners ship them: up to {@code attempts} in all, a fixed
 * {@code every} apart, whatever else is failing. No budget, no backoff, no jitter.
 */
final class FixedRetries implements Retries {
    private final int attempts;
    private final Duration every;

    FixedRetries(int attempts, Duration every) {
        this.attempts = attempts;
        this.every = every;
    }

    @Override
    public void firstAttempt() {
        // A fixed policy keeps no account of first attempts.
    }

    @Override
    public Optional<Duration> next(int attemptsSoFar) {
        return attemptsSoFar < attempts ? Optional.of(every) : Optional.empty();
    }
}
