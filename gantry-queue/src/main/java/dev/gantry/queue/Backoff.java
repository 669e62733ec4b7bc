package dev.gantry.queue;

import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * Capped exponential backoff with full jitter: the delay before retry n is uniform in [0, min(cap, base·2^(n-1))].
 * Full jitter spreads the retries of many failed messages over the whole window, so a dependency that comes back is
 * not hit by all of them at once.
 */
public final class Backoff {
    private Backoff() {
    }

    /** The delay before retry {@code retry} (1 for the first). */
    public static Duration delay(int retry, Duration base, Duration cap, RandomGenerator random) {
        if (retry < 1) {
            throw new IllegalArgumentException("retry counts from 1, got " + retry);
        }
        long capMillis = cap.toMillis();
        long ceiling = retry > 62 ? capMillis : Math.min(capMillis, base.toMillis() << Math.min(retry - 1, 40));
        if (ceiling <= 0) {
            ceiling = capMillis;
        }
        return Duration.ofMillis(random.nextLong(ceiling + 1));
    }
}
