package dev.gantry.sim;

import dev.gantry.resilience.Backoff;
import dev.gantry.resilience.RetryBudget;
import java.time.Duration;
import java.util.Optional;
import java.util.random.RandomGenerator;

/** Gantry's retries: each one must fit the {@link RetryBudget}, and waits a {@link Backoff} delay with full jitter. */
final class BudgetedRetries implements Retries {
    private final RetryBudget budget;
    private final Backoff backoff;
    private final RandomGenerator random;

    BudgetedRetries(RetryBudget budget, Backoff backoff, RandomGenerator random) {
        this.budget = budget;
        this.backoff = backoff;
        this.random = random;
    }

    @Override
    public void firstAttempt() {
        budget.recordFirstAttempt();
    }

    @Override
    public Optional<Duration> next(int attempts) {
        return budget.tryRetry() ? Optional.of(backoff.delay(attempts, random)) : Optional.empty();
    }
}
