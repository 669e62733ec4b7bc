package dev.gantry.agent.task;

import java.util.concurrent.atomic.AtomicReference;

/**
 * Why a task must stop early, set by the heartbeat thread (cancel, lost lease) or the agent (shutdown) and polled by
 * the step that is running, which then kills its processes. The first reason wins, except that a lost lease
 * overrides a cancel: after it nothing more may be sent. Thread-safe.
 */
final class TaskControl {
    enum Stop { NONE, CANCELED, LEASE_LOST }

    private final AtomicReference<Stop> stop = new AtomicReference<>(Stop.NONE);

    /** Someone canceled the job: kill the running step, skip the rest, complete as canceled. */
    void cancel() {
        stop.compareAndSet(Stop.NONE, Stop.CANCELED);
    }

    /** The lease is gone (409, heartbeats failing past the lease timeout, or agent shutdown): kill and go silent. */
    void leaseLost() {
        stop.set(Stop.LEASE_LOST);
    }

    Stop stop() {
        return stop.get();
    }

    boolean stopped() {
        return stop.get() != Stop.NONE;
    }

    boolean silent() {
        return stop.get() == Stop.LEASE_LOST;
    }
}
