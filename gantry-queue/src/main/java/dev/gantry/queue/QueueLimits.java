package dev.gantry.queue;

/**
 * Limits on one queue's claims; null means unlimited.
 *
 * @param maxRunning   messages of the queue held by workers at once, across all processes
 * @param maxPerSecond messages claimed per second, enforced by each process for its own claims
 */
public record QueueLimits(Integer maxRunning, Double maxPerSecond) {
    public static final QueueLimits NONE = new QueueLimits(null, null);

    public QueueLimits {
        if (maxRunning != null && maxRunning < 1) {
            throw new IllegalArgumentException("maxRunning must be at least 1, got " + maxRunning);
        }
        if (maxPerSecond != null && !(maxPerSecond > 0)) {
            throw new IllegalArgumentException("maxPerSecond must be positive, got " + maxPerSecond);
        }
    }

    boolean any() {
        return maxRunning != null || maxPerSecond != null;
    }
}
