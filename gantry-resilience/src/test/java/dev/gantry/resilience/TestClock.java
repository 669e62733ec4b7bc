package dev.gantry.resilience;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;

/** A clock the test moves by hand. */
final class TestClock implements InstantSource {
    private Instant now = Instant.parse("2026-10-09T11:15:00Z");

    @Override
    public Instant instant() {
        return now;
    }

    void advance(Duration d) {
        now = now.plus(d);
    }
}
