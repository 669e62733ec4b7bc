package dev.gantry.agent.protocol;

/**
 * How many quick retries the agent may send its server: a token bucket where every first attempt earns
 * {@code ratio} of a retry (up to {@code burst} saved) and every quick retry spends one. Over any stretch, quick
 * retries are at most {@code ratio × first attempts + burst}, so when the server fails part of its requests the
 * agent adds at most that share to its load instead of doubling it (DESIGN.md, invariant 4). A retry the budget
 * refuses is not dropped, which would give up a task while its lease still holds: it waits the policy's longest wait
 * instead. The same bucket as {@code dev.gantry.scheduler.resilience.RetryBudget}, which the agent may not depend on.
 * Thread-safe.
 */
final class RetryBudget {
    /** One retry per ten first attempts, and ten saved for a burst (a server restart under a few running tasks). */
    static RetryBudget standard() {
        return new RetryBudget(0.1, 10);
    }

    // Kept in thousandths of a retry, so ten deposits of 0.1 make exactly one retry.
    private static final long ONE = 1000;
    private final long deposit;
    private final long max;
    private long tokens;

    RetryBudget(double ratio, int burst) {
        if (!(ratio >= 0 && ratio <= 1) || burst < 0) {
            throw new IllegalArgumentException("retry budget needs 0 <= ratio <= 1 and burst >= 0, got ratio "
                    + ratio + ", burst " + burst);
        }
        this.deposit = Math.round(ratio * ONE);
        this.max = burst * ONE;
        this.tokens = max;
    }

    synchronized void recordFirstAttempt() {
        tokens = Math.min(max, tokens + deposit);
    }

    /** Whether a quick retry may go now; if so it is counted. */
    synchronized boolean tryQuickRetry() {
        if (tokens < ONE) {
            return false;
        }
        tokens -= ONE;
        return true;
    }
}
