package dev.gantry.resilience;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;

/**
 * A circuit breaker for one external destination. Closed: calls go; {@code failureThreshold} failures in a row open
 * it. Open: calls are refused (the caller keeps the work and tries later) until {@code openFor} has passed. Half-open:
 * one probe call goes; its success closes the breaker, its failure opens it for another {@code openFor}. A failing
 * destination so costs one call per {@code openFor} instead of every call. Time from the injected clock; thread-safe.
 *
 * <p>DESIGN.md prefers resilience4j for this; it is written here because the simulator must run it on a virtual
 * clock and resilience4j reads wall time for its open state.
 */
public final class CircuitBreaker {
    /** Where a breaker stands. */
    public enum State { CLOSED, OPEN, HALF_OPEN }

    private final int failureThreshold;
    private final Duration openFor;
    private final InstantSource clock;
    private State state = State.CLOSED;
    private int failuresInARow;
    private Instant openedAt;
    private boolean probeOut;

    public CircuitBreaker(int failureThreshold, Duration openFor, InstantSource clock) {
        if (failureThreshold < 1 || openFor.isNegative() || openFor.isZero()) {
            throw new IllegalArgumentException("circuit breaker needs failureThreshold >= 1 and openFor > 0, got "
                    + failureThreshold + " and " + openFor);
        }
        this.failureThreshold = failureThreshold;
        this.openFor = openFor;
        this.clock = clock;
    }

    /**
     * Whether a call may go now. In the half-open state only one caller gets {@code true} (the probe) until it
     * reports its outcome.
     */
    public synchronized boolean tryCall() {
        if (state == State.OPEN && !clock.instant().isBefore(openedAt.plus(openFor))) {
            state = State.HALF_OPEN;
            probeOut = false;
        }
        return switch (state) {
            case CLOSED -> true;
            case OPEN -> false;
            case HALF_OPEN -> {
                if (probeOut) {
                    yield false;
                }
                probeOut = true;
                yield true;
            }
        };
    }

    /** The call allowed by {@link #tryCall} succeeded. */
    public synchronized void recordSuccess() {
        state = State.CLOSED;
        failuresInARow = 0;
        probeOut = false;
    }

    /** The call allowed by {@link #tryCall} failed (an error or a timeout). */
    public synchronized void recordFailure() {
        failuresInARow++;
        if (state == State.HALF_OPEN || failuresInARow >= failureThreshold) {
            state = State.OPEN;
            openedAt = clock.instant();
            probeOut = false;
        }
    }

    /** The state now (an open breaker whose time is up reads as half-open). */
    public synchronized State state() {
        if (state == State.OPEN && !clock.instant().isBefore(openedAt.plus(openFor))) {
            return State.HALF_OPEN;
        }
        return state;
    }
}
