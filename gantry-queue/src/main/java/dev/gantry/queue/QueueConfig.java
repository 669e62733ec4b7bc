package dev.gantry.queue;

import dev.gantry.resilience.TokenBucket;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jdbi.v3.core.Jdbi;

/**
 * The per-queue settings kept in the database (limits, ramp, when it resumed), read at most every
 * {@link #REFRESH} per queue so claims do not add a query each, plus this process's rate limiters (a {@link TokenBucket} per queue).
 */
final class QueueConfig {
    static final Duration REFRESH = Duration.ofMillis(500);

    record Settings(QueueLimits limits, Ramp ramp, Instant resumedAt, Instant readAt) {
        static final Settings DEFAULT = new Settings(QueueLimits.NONE, Ramp.NONE, null, Instant.MIN);
    }

    private final Jdbi jdbi;
    private final Map<String, Settings> cache = new ConcurrentHashMap<>();
    private final Map<String, TokenBucket> buckets = new ConcurrentHashMap<>();

    private final InstantSource clock;

    QueueConfig(Jdbi jdbi, InstantSource clock) {
        this.jdbi = jdbi;
        this.clock = clock;
    }

    Settings of(String queue, Instant now) {
        Settings s = cache.get(queue);
        if (s == null || !now.isBefore(s.readAt().plus(REFRESH)) || now.isBefore(s.readAt())) {
            s = jdbi.withHandle(h -> h.createQuery("SELECT " + QueueControl.COLUMNS
                            + " FROM gantry_queue.queue WHERE name = :queue").bind("queue", queue)
                    .map((rs, ctx) -> QueueControl.read(rs)).findOne()
                    .map(c -> new Settings(c.limits(), c.ramp(), c.resumedAt().orElse(null), now))
                    .orElse(new Settings(QueueLimits.NONE, Ramp.NONE, null, now)));
            cache.put(queue, s);
        }
        return s;
    }

    /** Whether {@code queue} was last seen with a concurrency limit; answers from the cache, never the database. */
    boolean capsRunning(String queue) {
        Settings s = cache.get(queue);
        return s != null && s.limits().maxRunning() != null;
    }

    void forget(String queue) {
        cache.remove(queue);
    }

    /** Takes up to {@code wanted} claims from this process's budget for {@code queue} at {@code perSecond}. */
    int takeRate(String queue, double perSecond, int wanted) {
        // At most a second's worth is saved up, so a queue idle for an hour does not burst an hour's worth.
        double burst = Math.max(1, perSecond);
        TokenBucket bucket = buckets.computeIfAbsent(queue, q -> new TokenBucket(perSecond, burst, clock));
        bucket.setRate(perSecond, burst);
        return bucket.tryTake(wanted);
    }
}
