package dev.gantry.sim;

import java.time.Instant;
import java.time.InstantSource;

/** The simulation's clock: moved only by the event loop, never by the wall clock. Not thread-safe. */
final class VirtualClock implements InstantSource {
    /** Virtual time zero. A fixed instant, so every run prints the same times. */
    static final Instant START = Instant.parse("2026-10-21T12:00:00Z");

    private Instant now = START;

    @Override
    public Instant instant() {
        return now;
    }

    void set(Instant t) {
        if (t.isBefore(now)) {
            throw new IllegalStateException("virtual time cannot go back from " + now + " to " + t);
        }
        now = t;
    }
}
