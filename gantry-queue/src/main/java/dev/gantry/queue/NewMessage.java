package dev.gantry.queue;

import java.time.Instant;
import java.util.Objects;

/**
 * A message to enqueue. Build one with {@link #to(String)}.
 *
 * @param uniqueKey   null, or a key that makes a second enqueue of the same key (on the same queue, within the
 *                    retention period) return the first message instead of creating another
 * @param runAt       null to run as soon as possible, or the earliest time to deliver it
 * @param priority    higher is claimed first; within a priority, older first
 * @param maxAttempts deliveries before the message is dead-lettered
 * @param group       the tenant the message belongs to, for fairness; "" when none
 */
public record NewMessage(String queue, String payload, String uniqueKey, Instant runAt, int priority, int maxAttempts,
                         String group) {

    public static final int DEFAULT_MAX_ATTEMPTS = 5;
    public static final int MAX_PRIORITY = Short.MAX_VALUE;

    public NewMessage {
        Queues.checkName(queue);
        Objects.requireNonNull(payload, "payload");
        Objects.requireNonNull(group, "group");
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1, got " + maxAttempts);
        }
        if (Math.abs(priority) > MAX_PRIORITY) {
            throw new IllegalArgumentException("priority must be within ±" + MAX_PRIORITY + ", got " + priority);
        }
        if (uniqueKey != null && uniqueKey.isEmpty()) {
            throw new IllegalArgumentException("uniqueKey must be null or non-empty");
        }
    }

    /** A message for {@code queue} with an empty payload, no key, priority 0 and the default attempts. */
    public static NewMessage to(String queue) {
        return new NewMessage(queue, "", null, null, 0, DEFAULT_MAX_ATTEMPTS, "");
    }

    public NewMessage payload(String payload) {
        return new NewMessage(queue, payload, uniqueKey, runAt, priority, maxAttempts, group);
    }

    public NewMessage uniqueKey(String uniqueKey) {
        return new NewMessage(queue, payload, uniqueKey, runAt, priority, maxAttempts, group);
    }

    public NewMessage runAt(Instant runAt) {
        return new NewMessage(queue, payload, uniqueKey, runAt, priority, maxAttempts, group);
    }

    public NewMessage priority(int priority) {
        return new NewMessage(queue, payload, uniqueKey, runAt, priority, maxAttempts, group);
    }

    public NewMessage maxAttempts(int maxAttempts) {
        return new NewMessage(queue, payload, uniqueKey, runAt, priority, maxAttempts, group);
    }

    public NewMessage group(String group) {
        return new NewMessage(queue, payload, uniqueKey, runAt, priority, maxAttempts, group);
    }
}
