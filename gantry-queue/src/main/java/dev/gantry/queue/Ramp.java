package dev.gantry.queue;

import java.time.Duration;
import java.time.Instant;

/**
 * How a resumed queue comes back: its limits start at {@code from} (a fraction of each) and rise linearly to full
 * over {@code over}, so a backlog does not hit a recovering database all at once. The incident's operators did this
 * by hand.
 */
public record Ramp(double from, Duration over) {
    /** A ramp is for coming back from an outage, not a schedule. (Before {@link #NONE}, which the check needs.) */
    public static final Duration MAX_OVER = Duration.ofDays(1);
    /** No ramp: full limits at once. */
    public static final Ramp NONE = new Ramp(1.0, Duration.ZERO);

    public Ramp {
        if (!(from > 0 && from <= 1)) {
            throw new IllegalArgumentException("a ramp starts at a fraction in (0, 1], got " + from);
        }
        if (over == null || over.isNegative() || over.compareTo(MAX_OVER) > 0) {
            throw new IllegalArgumentException("a ramp lasts from zero to " + MAX_OVER.toHours() + " hours, got "
                    + over);
        }
    }

    /** The fraction of the limits that applies at {@code now} for a queue resumed at {@code resumedAt}. */
    public double fraction(Instant resumedAt, Instant now) {
        if (resumedAt == null || over.isZero() || !now.isBefore(resumedAt.plus(over))) {
            return 1.0;
        }
        double elapsed = Math.max(0, Duration.between(resumedAt, now).toMillis()) / (double) over.toMillis();
        return from + (1 - from) * elapsed;
    }
}
