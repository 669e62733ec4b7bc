package dev.gantry.resilience;

import java.util.HashMap;
import java.util.Map;

/**
 * Caps how much of a shared worker pool any one destination may hold: at most {@code perDestination} concurrent calls
 * to a destination, at most {@code poolSize} in all. A destination that hangs or fails then ties up at most its own
 * share, and the rest of the pool keeps serving everyone else (the postmortem in which retries to one failing
 * provider drained a shared subsystem). A caller that gets {@code false} keeps its work queued and tries later.
 * Thread-safe.
 */
public final class Bulkhead {
    private final int poolSize;
    private final int perDestination;
    private final Map<String, Integer> inUse = new HashMap<>();
    private int total;

    public Bulkhead(int poolSize, int perDestination) {
        if (poolSize < 1 || perDestination < 1 || perDestination > poolSize) {
            throw new IllegalArgumentException("bulkhead needs 1 <= perDestination <= poolSize, got "
                    + perDestination + " of " + poolSize);
        }
        this.poolSize = poolSize;
        this.perDestination = perDestination;
    }

    /**
     * A bulkhead that gives each destination at most {@code share} of {@code poolSize} workers (at least one).
     */
    public static Bulkhead withShare(int poolSize, double share) {
        return new Bulkhead(poolSize, Math.max(1, (int) Math.floor(poolSize * share)));
    }

    /** Takes a worker for a call to {@code destination}, if its share and the pool allow; release it after. */
    public synchronized boolean tryAcquire(String destination) {
        int held = inUse.getOrDefault(destination, 0);
        if (held >= perDestination || total >= poolSize) {
            return false;
        }
        inUse.put(destination, held + 1);
        total++;
        return true;
    }

    /** Gives back a worker taken by {@link #tryAcquire} for {@code destination}. */
    public synchronized void release(String destination) {
        int held = inUse.getOrDefault(destination, 0);
        if (held == 0) {
            throw new IllegalStateException("release for " + destination + ", which holds no worker");
        }
        inUse.put(destination, held - 1);
        total--;
    }

    /** Workers held for {@code destination} now. */
    public synchronized int inUse(String destination) {
        return inUse.getOrDefault(destination, 0);
    }

    /** Workers held in all now. */
    public synchronized int inUse() {
        return total;
    }

    public int poolSize() {
        return poolSize;
    }

    public int perDestination() {
        return perDestination;
    }
}
