package dev.gantry.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gantry.testkit.EmbeddedPostgresExtension;
import dev.gantry.testkit.ManualClock;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Epoch partitions: maintenance opens, seals and drops them, unfinished messages survive a seal, finished ones stay
 * visible until retention, and only a few epochs are ever attached to the hot table, even under an old snapshot.
 */
class EpochMaintenanceIT {
    @RegisterExtension
    static final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension();

    // One clock for the class: epochs persist in the database between tests, so time only moves forward.
    private static final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
    private Queues queues;

    @AfterEach
    void stop() {
        queues.close();
    }

    @BeforeEach
    void start() {
        queues = Queues.start(pg.dataSource(), QueueSettings.defaults().withClock(clock)
                .withEpochLength(Duration.ofMinutes(1)).withRetention(Duration.ofMinutes(10))
                .withLease(Duration.ofMinutes(30)));
    }

    private void tick(Duration d) {
        clock.advance(d);
        queues.maintain();
    }

    @Test
    void unfinished_messages_survive_sealing_and_finished_ones_stay_visible_until_retention() {
        long done = queues.enqueue(NewMessage.to("seal")).id();
        queues.complete(queues.claim("seal", "w", 1).get(0));
        long held = queues.enqueue(NewMessage.to("seal")).id();
        Message holding = queues.claim("seal", "w", 1).get(0);
        long waiting = queues.enqueue(NewMessage.to("seal").uniqueKey("k")).id();

        for (int i = 0; i < 4; i++) {
            tick(Duration.ofSeconds(61));
        }
        assertThat(queues.liveEpochs()).hasSizeLessThanOrEqualTo(3);
        assertThat(queues.state(done)).contains(MessageState.DONE);
        // Archiving reused the partition's own indexes and a proven CHECK: no index was built, no scan made, while
        // the seal held the hot table.
        org.jdbi.v3.core.Jdbi jdbi = org.jdbi.v3.core.Jdbi.create(pg.dataSource());
        int indexes = jdbi.withHandle(h -> h.createQuery("""
                SELECT count(*) FROM pg_indexes WHERE schemaname = 'gantry_queue' AND tablename = 'message_1'
                """).mapTo(Integer.class).one());
        boolean proven = jdbi.withHandle(h -> h.createQuery("""
                SELECT convalidated FROM pg_constraint WHERE conname = 'message_1_epoch'
                """).mapTo(Boolean.class).one());
        assertThat(indexes).isEqualTo(4);
        assertThat(proven).isTrue();
        assertThat(queues.enqueue(NewMessage.to("seal").uniqueKey("k"))).isEqualTo(new Enqueued(waiting, false));

        queues.complete(holding); // its row moved forward twice; the lease still holds
        assertThat(queues.state(held)).contains(MessageState.DONE);
        assertThat(queues.claim("seal", "w", 10)).extracting(Message::id).containsExactly(waiting);

        for (int i = 0; i < 12; i++) {
            tick(Duration.ofSeconds(61));
        }
        assertThat(queues.state(done)).as("dropped with its partition after retention").isEmpty();
    }

    @Test
    void an_old_snapshot_does_not_keep_sealed_epochs_in_the_hot_table() throws Exception {
        try (Connection old = pg.dataSource().getConnection(); Statement s = old.createStatement()) {
            old.setAutoCommit(false);
            s.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
            s.executeQuery("SELECT txid_current()").close(); // holds back vacuum's horizon from here on
            int firstEpoch = queues.liveEpochs().get(0);
            for (int round = 0; round < 6; round++) {
                for (int i = 0; i < 50; i++) {
                    queues.enqueue(NewMessage.to("snapshot"));
                }
                List<Message> got = queues.claim("snapshot", "w", 50);
                got.forEach(queues::complete);
                tick(Duration.ofSeconds(61));
            }
            List<Integer> live = queues.liveEpochs();
            assertThat(live).hasSizeLessThanOrEqualTo(3);
            assertThat(live.get(live.size() - 1)).as("epochs kept turning over").isGreaterThanOrEqualTo(firstEpoch + 6);
            old.rollback();
        }
    }

    @Test
    void a_large_backlog_stays_in_its_epoch_until_it_shrinks_or_the_epoch_is_old() {
        org.jdbi.v3.core.Jdbi.create(pg.dataSource()).useTransaction(h -> {
            java.util.List<NewMessage> backlog = new java.util.ArrayList<>();
            for (int i = 0; i < Epochs.MAX_MOVED + 500; i++) {
                backlog.add(NewMessage.to("backlog"));
            }
            queues.enqueueAll(h, backlog);
        });
        int backlogEpoch = queues.liveEpochs().get(queues.liveEpochs().size() - 1);
        for (int i = 0; i < 4; i++) {
            tick(Duration.ofSeconds(61));
        }
        assertThat(queues.liveEpochs()).as("not copied forward turn after turn").contains(backlogEpoch);

        for (int i = 0; i < Epochs.MAX_AGE_EPOCHS; i++) {
            tick(Duration.ofSeconds(61));
        }
        assertThat(queues.liveEpochs()).as("sealed once old, whatever it holds").doesNotContain(backlogEpoch)
                .hasSizeLessThanOrEqualTo(3);
        int claimed = 0;
        List<Message> got;
        while (!(got = queues.claim("backlog", "w", 500)).isEmpty()) {
            got.forEach(queues::complete);
            claimed += got.size();
        }
        assertThat(claimed).as("every message moved forward intact").isEqualTo(Epochs.MAX_MOVED + 500);
    }
}
