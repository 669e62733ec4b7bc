package dev.gantry.queue;

import java.time.Instant;

/**
 * A claimed message, leased to one worker until {@code leaseUntil}. {@code attempt} is the fencing token: completing,
 * failing or extending the lease names it, and is refused once the lease has been rescued and the message claimed
 * again with a higher attempt.
 */
public record Message(long id, String queue, String payload, String uniqueKey, String group, int priority,
                      int attempt, int maxAttempts, Instant enqueuedAt, Instant leaseUntil, String lastError) {

    /** True when this delivery is the last one the message gets. */
    public boolean lastAttempt() {
        return attempt >= maxAttempts;
    }
}
