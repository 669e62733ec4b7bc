package dev.gantry.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gantry.testkit.EmbeddedPostgresExtension;
import dev.gantry.testkit.ManualClock;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A transaction that read the queue's table and stays open, as {@code pg_dump} or a forgotten psql {@code BEGIN}
 * does, holds a lock on it until it ends. Maintenance's partition changes need an exclusive lock there; if they
 * queued behind that transaction, every claim, enqueue and completion would queue behind them, and the queue would
 * freeze for as long as the transaction lasts.
 */
class LongTransactionIT {
    @RegisterExtension
    static final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension();

    @Test
    void a_long_transaction_on_the_queue_table_neither_freezes_the_queue_nor_stops_epochs_turning_over_once_it_ends()
            throws Exception {
        ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
        try (Queues queues = Queues.start(pg.dataSource(), QueueSettings.defaults().withClock(clock)
                .withEpochLength(Duration.ofMinutes(1)))) {
            queues.enqueue(NewMessage.to("backup"));
            try (Connection backup = DriverManager.getConnection(pg.url().jdbcUrl(), pg.url().user().orElseThrow(),
                    "")) {
                backup.setAutoCommit(false);
                try (Statement s = backup.createStatement()) {
                    s.executeQuery("SELECT count(*) FROM gantry_queue.message").close();
                }
                Thread.sleep(LockHolder.LONG.toMillis() + 500);

                clock.advance(Duration.ofSeconds(61));
                CompletableFuture.runAsync(queues::maintain).get(5, TimeUnit.SECONDS);
                assertThat(queues.liveEpochs()).as("no new epoch while the transaction holds the table").hasSize(1);

                long start = System.nanoTime();
                long id = queues.enqueue(NewMessage.to("backup")).id();
                queues.claim("backup", "w", 10).forEach(queues::complete);
                assertThat(queues.state(id)).contains(MessageState.DONE);
                assertThat(Duration.ofNanos(System.nanoTime() - start)).as("enqueue, claim and complete")
                        .isLessThan(Duration.ofSeconds(1));
                backup.rollback();
            }
            queues.maintain();
            assertThat(queues.liveEpochs()).as("epochs turn over once it ended").hasSize(2);
            clock.advance(Duration.ofSeconds(61));
            queues.maintain();
            assertThat(queues.liveEpochs()).hasSize(2).doesNotContain(1);
        }
    }
}
