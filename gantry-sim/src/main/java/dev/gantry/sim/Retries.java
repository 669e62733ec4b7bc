package dev.gantry.sim;

import java.time.Duration;
import java.util.Optional;

/**
 * What a caller does after a failed write: retry after a delay, or give up. One per caller; called from the event
 * loop only. {@link BudgetedRetries} is Gantry's, {@link FixedRetries} the baseline's.
 */
interface Retries {
    /** A first attempt (not a retry) is being made. */
    void firstAttempt();

    /** The delay before the next attempt, after {@code attempts} failed ones; empty: give up. */
    Optional<Duration> next(int attempts);
}
