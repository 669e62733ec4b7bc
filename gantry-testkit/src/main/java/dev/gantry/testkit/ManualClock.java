package dev.gantry.testkit;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/**
 * An {@link InstantSource} whose time moves only when the test calls {@link #advance} or {@link #set}, so that code
 * which waits, expires or backs off can be driven step by step. Pass it wherever production code takes an
 * {@code InstantSource}; {@link #withZone} gives a {@link java.time.Clock} that follows it.
 *
 * <p>Thread-safe: any thread may read or move the time; every reader sees the latest move. Reading never blocks.
 */
public final class ManualClock implements InstantSource {
    /** Where a clock made with {@link #ManualClock()} starts: an arbitrary, fixed instant. */
    public static final Instant DEFAULT_START = Instant.parse("2025-01-01T00:00:00Z");

    private final AtomicReference<Instant> now;

    /** A clock at {@link #DEFAULT_START}. */
    public ManualClock() {
        this(DEFAULT_START);
    }

    public ManualClock(Instant start) {
        this.now = new AtomicReference<>(Objects.requireNonNull(start, "start"));
    }

    @Override
    public Instant instant() {
        return now.get();
    }

    /**
     * Moves the time forward and returns the new time.
     *
     * @throws IllegalArgumentException if {@code duration} is negative: time that runs backwards is almost always a
     *                                  mistake in a test; use {@link #set} to go back on purpose
     */
    public Instant advance(Duration duration) {
        Objects.requireNonNull(duration, "duration");
        if (duration.isNegative()) {
            throw new IllegalArgumentException("advance needs a duration of zero or more, got " + duration
                    + "; use set(Instant) to move the clock back");
        }
        return now.updateAndGet(current -> current.plus(duration));
    }

    /** Sets the time, forwards or backwards. */
    public void set(Instant instant) {
        now.set(Objects.requireNonNull(instant, "instant"));
    }

    @Override
    public String toString() {
        return "ManualClock[" + now.get() + "]";
    }
}
