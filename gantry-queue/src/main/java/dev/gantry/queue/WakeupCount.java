package dev.gantry.queue;

import java.time.Duration;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A count of wake-ups that a waiter can wait past: read {@link #generation()} before looking for work, then
 * {@link #await} a later one, and a wake-up between the look and the wait is not missed. Thread-safe.
 */
public final class WakeupCount {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private long generation;

    /** The count now; pass it to {@link #await}. */
    public long generation() {
        lock.lock();
        try {
            return generation;
        } finally {
            lock.unlock();
        }
    }

    /** Counts one wake-up and releases every waiter. */
    public void fire() {
        lock.lock();
        try {
            generation++;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Waits until the count has passed {@code since} or {@code timeout} is over; true when it has passed. */
    public boolean await(long since, Duration timeout) throws InterruptedException {
        lock.lock();
        try {
            long nanos = timeout.toNanos();
            while (generation == since && nanos > 0) {
                nanos = changed.awaitNanos(nanos);
            }
            return generation != since;
        } finally {
            lock.unlock();
        }
    }
}
