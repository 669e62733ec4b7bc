package dev.gantry.db;

import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * How long {@link PostmasterSupervisor} waits after a failed start before the next: capped exponential backoff with
 * full jitter, uniform in {@code [0, min(cap, base × 2^(failures-1))]}, the rule the queue and the scheduler use (this
 * module depends on neither, so it keeps its own copy until they share one). An immutable value.
 *
 * @param base the ceiling of the wait after the first failure
 * @param cap  the largest ceiling
 */
record RestartBackoff(Duration base, Duration cap) {
    /** 0.5 s doubling to 10 s: a server that can start again is back within seconds, one that cannot is not hammered. */
    static final RestartBackoff DEFAULT = new RestartBackoff(Duration.ofMillis(500), Duration.ofSeconds(10));

    RestartBackoff {
        if (base.isNegative() || base.isZero() || cap.compareTo(base) < 0) {
            throw new IllegalArgumentException("backoff needs 0 < base <= cap, got base " + base + ", cap " + cap);
        }
    }

    /** The longest wait after {@code failures} failed starts in a row (1 for the first). */
    Duration ceiling(int failures) {
        if (failures < 1) {
            throw new IllegalArgumentException("failures count from 1, got " + failures);
        }
        // Stop doubling before the multiplication overflows; by 2^30 any base is past a sane cap.
        long factor = 1L << Math.min(failures - 1, 30);
        long millis = base.toMillis() > cap.toMillis() / factor ? cap.toMillis() : base.toMillis() * factor;
        return Duration.ofMillis(Math.min(millis, cap.toMillis()));
    }

    /** The wait after {@code failures} failed starts in a row, drawn from {@code random}. */
    Duration delay(int failures, RandomGenerator random) {
        return Duration.ofMillis(random.nextLong(ceiling(failures).toMillis() + 1));
    }
}
