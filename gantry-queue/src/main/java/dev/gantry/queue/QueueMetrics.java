package dev.gantry.queue;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The queue's Micrometer meters, all tagged {@code queue}: counters of messages enqueued, completed, retried, dead
 * and rescued; a timer of the wait from due to claimed ({@code gantry.queue.wait}, with a percentile histogram); and
 * gauges of depth by state and of the oldest due message's age, read from a snapshot refreshed at most every
 * {@link #STATS_REFRESH}. Database gauges: WAL bytes per second, dead tuples, commit latency.
 */
final class QueueMetrics {
    static final Duration STATS_REFRESH = Duration.ofSeconds(5);

    private final MeterRegistry registry;
    private final Supplier<List<QueueStats>> stats;
    private final Map<String, Counter> counters = new ConcurrentHashMap<>();
    private final Map<String, Timer> waits = new ConcurrentHashMap<>();
    private final Map<String, Boolean> gauged = new ConcurrentHashMap<>();
    /** Held here because a gauge holds its object weakly: collected, the database gauges would read NaN. */
    private final CachedHealth cachedHealth;
    private volatile List<QueueStats> snapshot = List.of();
    private volatile long snapshotAt;

    QueueMetrics(MeterRegistry registry, Supplier<List<QueueStats>> stats, Supplier<DatabaseHealth> health) {
        this.registry = registry;
        this.stats = stats;
        this.cachedHealth = new CachedHealth(health);
        Gauge.builder("gantry.queue.db.wal.bytes.per.second", cachedHealth, c -> c.get().walBytesPerSecond())
                .description("WAL written per second").register(registry);
        Gauge.builder("gantry.queue.db.dead.tuples", cachedHealth, c -> c.get().deadTuples())
                .description("dead row versions in the queue's tables").register(registry);
        Gauge.builder("gantry.queue.db.commit.latency", cachedHealth, c -> c.get().commitLatency().toNanos() / 1e9)
                .description("time to commit a minimal write").baseUnit("seconds").register(registry);
    }

    void count(String queue, String event, int n) {
        if (n > 0) {
            counters.computeIfAbsent(queue + "\0" + event, k -> Counter.builder("gantry.queue.messages")
                    .tag("queue", queue).tag("event", event).register(registry)).increment(n);
        }
        gauges(queue);
    }

    void waited(String queue, Duration wait) {
        waits.computeIfAbsent(queue, q -> Timer.builder("gantry.queue.wait")
                .description("from due to claimed").tag("queue", q).publishPercentileHistogram()
                .register(registry)).record(wait.isNegative() ? Duration.ZERO : wait);
    }

    private void gauges(String queue) {
        if (gauged.putIfAbsent(queue, Boolean.TRUE) != null) {
            return;
        }
        for (String state : List.of("ready", "running", "dead")) {
            Gauge.builder("gantry.queue.depth", this, m -> m.stat(queue, state)).tag("queue", queue)
                    .tag("state", state).register(registry);
        }
        Gauge.builder("gantry.queue.oldest.ready.age", this, m -> m.stat(queue, "age")).tag("queue", queue)
                .baseUnit("seconds").register(registry);
    }

    private double stat(String queue, String what) {
        if (System.nanoTime() - snapshotAt > STATS_REFRESH.toNanos()) {
            try {
                snapshot = stats.get();
            } catch (QueueException e) {
                return Double.NaN; // the database is away: a gap in the graph, not a made-up zero
            }
            snapshotAt = System.nanoTime();
        }
        for (QueueStats s : snapshot) {
            if (s.queue().equals(queue)) {
                return switch (what) {
                    case "ready" -> s.ready();
                    case "running" -> s.running();
                    case "dead" -> s.dead();
                    default -> s.oldestReadyAge().toMillis() / 1000.0;
                };
            }
        }
        return 0;
    }

    /** The health probe, taken at most every {@link #STATS_REFRESH}. */
    private static final class CachedHealth {
        private final Supplier<DatabaseHealth> probe;
        private volatile DatabaseHealth last = new DatabaseHealth(Double.NaN, -1, -1, Duration.ZERO);
        private volatile long at;

        CachedHealth(Supplier<DatabaseHealth> probe) {
            this.probe = probe;
        }

        DatabaseHealth get() {
            if (System.nanoTime() - at > STATS_REFRESH.toNanos()) {
                try {
                    last = probe.get();
                } catch (QueueException e) {
                    last = new DatabaseHealth(Double.NaN, -1, -1, Duration.ZERO);
                }
                at = System.nanoTime();
            }
            return last;
        }
    }
}
