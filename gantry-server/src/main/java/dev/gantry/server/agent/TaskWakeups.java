package dev.gantry.server.agent;

import java.time.Duration;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Wakes waiting claims when tasks are queued in this process, so that an idle agent hears of new work at once instead
 * of at its next re-check. Whoever queues tasks (the orchestrator) calls {@link #tasksQueued()} after its transaction
 * commits. A claim reads {@link #generation()} before it looks for a task and then {@link #await}s a later one, so a
 * wake-up between its look and its wait is not missed. Tasks queued by another server process are found by the
 * claims' periodic re-check instead. Thread-safe.
 */
public final class TaskWakeups {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private long generation;
    private boolean closed;

    /** Tells waiting claims that tasks were queued; call after the transaction that queued them committed. */
    public void tasksQueued() {
        lock.lock();
        try {
            generation++;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** The wake-up count now; pass it to {@link #await}. */
    long generation() {
        lock.lock();
        try {
            return generation;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits until a wake-up after {@code since}, {@code timeout} passes or {@link #close()} is called.
     *
     * @return true when woken (or closed), false on timeout
     */
    boolean await(long since, Duration timeout) throws InterruptedException {
        long nanos = timeout.toNanos();
        lock.lock();
        try {
            while (generation == since && !closed) {
                if (nanos <= 0) {
                    return false;
                }
                nanos = changed.awaitNanos(nanos);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** True once {@link #close()} was called: waiting claims should answer at once. */
    boolean closed() {
        lock.lock();
        try {
            return closed;
        } finally {
            lock.unlock();
        }
    }

    /** Releases every waiter for good; the server is stopping. */
    void close() {
        lock.lock();
        try {
            closed = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }
}
