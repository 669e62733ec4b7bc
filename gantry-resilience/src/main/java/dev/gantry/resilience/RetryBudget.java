package dev.gantry.resilience;

/**
 * A token bucket that bounds retries to a fraction of first attempts: every first attempt deposits {@code ratio}
 * tokens (up to {@code maxTokens}), every retry spends one. Over any stretch, retries are at most
 * {@code ratio × first attempts + maxTokens}, so a caller whose dependency is down adds at most {@code ratio} to its
 * load instead of multiplying it. One per caller or destination; thread-safe.
 */
public final class RetryBudget {
    // Kept in thousandths of a retry, so ten deposits of 0.1 make exactly one retry.
    private static final long ONE = 1000;
    private final long deposit;
    private final long max;
    private long tokens;

    /**
     * @param ratio     retries allowed per first attempt, e.g. 0.1
     * @param maxTokens the most retries that can be saved up for a burst of failures; the bucket starts full
     */
    public RetryBudget(double ratio, double maxTokens) {
        if (!(ratio >= 0 && ratio <= 1) || !(maxTokens >= 0)) {
            throw new IllegalArgumentException("retry budget needs 0 <= ratio <= 1 and maxTokens >= 0, got ratio "
                    + ratio + ", maxTokens " + maxTokens);
        }
        this.deposit = Math.round(ratio * ONE);
        this.max = Math.round(maxTokens * ONE);
        this.tokens = max;
    }

    /** Records a first attempt (not a retry), which earns {@code ratio} of a retry. */
    public synchronized void recordFirstAttempt() {
        tokens = Math.min(max, tokens + deposit);
    }

    /** Whether a retry may go now; if so it is counted against the budget. */
    public synchronized boolean tryRetry() {
        if (tokens < ONE) {
            return false;
        }
        tokens -= ONE;
        return true;
    }

    /** The retries that could go now. */
    public synchronized double tokens() {
        return (double) tokens / ONE;
    }
}
