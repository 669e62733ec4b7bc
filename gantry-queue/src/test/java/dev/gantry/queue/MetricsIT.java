package dev.gantry.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gantry.testkit.EmbeddedPostgresExtension;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The queue's meters and the database health probe, read back from a real registry and database. */
class MetricsIT {
    @RegisterExtension
    static final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension();

    @Test
    void counters_timers_and_depth_gauges_follow_the_messages() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (Queues queues = Queues.start(pg.dataSource(), QueueSettings.defaults(), registry)) {
            for (int i = 0; i < 3; i++) {
                queues.enqueue(NewMessage.to("metered").maxAttempts(2));
            }
            var claimed = queues.claim("metered", "w", 2);
            queues.complete(claimed.get(0));
            queues.fail(claimed.get(1), "boom", true);

            assertThat(count(registry, "enqueued")).isEqualTo(3);
            assertThat(count(registry, "completed")).isEqualTo(1);
            assertThat(count(registry, "retried")).isEqualTo(1);
            assertThat(registry.get("gantry.queue.wait").tag("queue", "metered").timer().count()).isEqualTo(2);
            assertThat(registry.get("gantry.queue.depth").tag("queue", "metered").tag("state", "ready").gauge().value())
                    .isEqualTo(2); // one never claimed, one retried
            assertThat(registry.get("gantry.queue.depth").tag("queue", "metered").tag("state", "running").gauge()
                    .value()).isZero();

            assertThat(queues.stats()).filteredOn(s -> s.queue().equals("metered")).singleElement().satisfies(s -> {
                assertThat(s.queue()).isEqualTo("metered");
                assertThat(s.ready()).isEqualTo(2);
                assertThat(s.oldestReadyAge()).isGreaterThanOrEqualTo(Duration.ZERO);
            });
        }
    }

    @Test
    void the_health_probe_reports_wal_rate_tuples_and_commit_latency() {
        try (Queues queues = Queues.start(pg.dataSource(), QueueSettings.defaults(), new SimpleMeterRegistry())) {
            queues.health();
            for (int i = 0; i < 100; i++) {
                queues.enqueue(NewMessage.to("health").payload("x".repeat(100)));
            }
            DatabaseHealth health = queues.health();
            assertThat(health.walBytesPerSecond()).isPositive();
            assertThat(health.deadTuples()).isGreaterThanOrEqualTo(0);
            assertThat(health.commitLatency()).isPositive();
        }
    }

    @Test
    void the_database_gauges_read_the_health_probe() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (Queues queues = Queues.start(pg.dataSource(), QueueSettings.defaults(), registry)) {
            System.gc(); // a gauge holds its object weakly: one only the gauge held would now read NaN
            // NaN passes isPositive (it compares as Double.compare does), hence isNotNaN first.
            assertThat(registry.get("gantry.queue.db.commit.latency").gauge().value()).isNotNaN().isPositive();
            assertThat(registry.get("gantry.queue.db.dead.tuples").gauge().value()).isNotNaN().isNotNegative();
            assertThat(registry.get("gantry.queue.db.wal.bytes.per.second").gauge().value()).isNotNaN()
                    .isNotNegative();
        }
    }

    private static double count(SimpleMeterRegistry registry, String event) {
        return registry.get("gantry.queue.messages").tag("queue", "metered").tag("event", event).counter().count();
    }
}
