package dev.gantry.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
        // Archiving reused the partition's own indexes and a proven CHECK: no index was built and no scan made.
        org.jdbi.v3.core.Jdbi jdbi = org.jdbi.v3.core.Jdbi.create(pg.dataSource());
        int indexes = jdbi.withHandle(h -> h.createQuery("""
                SELECT count(*) FROM pg_indexes WHERE schemaname = 'gantry_queue' AND tablename = 'message_1'
                """).mapTo(Integer.class).one());
        boolean proven = jdbi.withHandle(h -> h.createQuery("""
                SELECT convalidated FROM pg_constraint WHERE conname = 'message_1_epoch'
                """).mapTo(Boolean.class).one());
        assertThat(indexes).isEqualTo(5);
        assertThat(proven).isTrue();
        List<String> options = jdbi.withHandle(h -> h.createQuery("""
                SELECT unnest(reloptions) FROM pg_class WHERE oid = CAST('gantry_queue.message_1' AS regclass)
                """).mapTo(String.class).list());
        assertThat(options).as("room on each page for a message's later versions")
                .contains("fillfactor=" + Epochs.FILLFACTOR);
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
    void the_stats_count_archived_dead_messages_without_reading_every_archived_message() {
        org.jdbi.v3.core.Jdbi jdbi = org.jdbi.v3.core.Jdbi.create(pg.dataSource());
        int epoch = queues.liveEpochs().get(queues.liveEpochs().size() - 1);
        // 50,000 finished messages, one in a thousand dead, written at once: a day's archive in miniature.
        jdbi.useHandle(h -> h.execute("""
                INSERT INTO gantry_queue.message (epoch, id, queue, state, priority, group_key, run_at, attempt,
                                                  max_attempts, payload, enqueued_at, finished_at)
                SELECT %d, nextval('gantry_queue.message_id'), 'archived', CASE WHEN g %% 1000 = 0 THEN 3 ELSE 2 END,
                       0, '', now(), 1, 1, '', now(), now()
                FROM generate_series(1, 50000) g
                """.formatted(epoch)));
        tick(Duration.ofSeconds(61));
        tick(Duration.ofSeconds(61));
        assertThat(queues.liveEpochs()).as("the epoch was archived").doesNotContain(epoch);
        jdbi.useHandle(h -> h.execute("ANALYZE gantry_queue.message_archive"));

        assertThat(queues.stats()).filteredOn(s -> s.queue().equals("archived")).singleElement()
                .satisfies(s -> assertThat(s.dead()).isEqualTo(50));
        List<String> plan = jdbi.withHandle(h -> h.createQuery("EXPLAIN " + MessageSql.STATS)
                .bind("now", Queues.ts(clock.instant())).mapTo(String.class).list());
        assertThat(plan).as("the stats' plan").noneMatch(line -> line.contains("Seq Scan on message_" + epoch + " "));
    }

    @Test
    void a_seal_finds_the_unfinished_messages_through_their_indexes_not_by_reading_the_whole_epoch() {
        org.jdbi.v3.core.Jdbi jdbi = org.jdbi.v3.core.Jdbi.create(pg.dataSource());
        int epoch = queues.liveEpochs().get(queues.liveEpochs().size() - 1);
        String table = "gantry_queue.message_" + epoch;
        // An epoch's worth of finished messages, three still ready and two running, not analysed: as a seal finds it.
        jdbi.useHandle(h -> h.execute("""
                INSERT INTO gantry_queue.message (epoch, id, queue, state, priority, group_key, run_at, attempt,
                                                  max_attempts, payload, enqueued_at, finished_at, lease_until)
                SELECT %d, nextval('gantry_queue.message_id'), 'sealed', CASE WHEN g <= 3 THEN 0 WHEN g <= 5 THEN 1 ELSE 2 END,
                       0, '', now(), 1, 1, '', now(), CASE WHEN g > 5 THEN now() END,
                       CASE WHEN g IN (4, 5) THEN now() + interval '1 hour' END
                FROM generate_series(1, 50000) g
                """.formatted(epoch)));

        long unfinished = jdbi.withHandle(h -> h.createQuery(Epochs.countUnfinished(table)).bind("batch", 1_001)
                .mapTo(Long.class).one());
        assertThat(unfinished).isEqualTo(5);
        for (String statement : List.of(Epochs.countUnfinished(table), "WITH " + Epochs.unfinishedIds(table,
                " FOR UPDATE SKIP LOCKED") + " UPDATE gantry_queue.message SET epoch = epoch WHERE epoch = " + epoch
                + " AND id IN (SELECT id FROM ready UNION ALL SELECT id FROM running)")) {
            List<String> plan = jdbi.withHandle(h -> h.createQuery("EXPLAIN " + statement).bind("batch", 500)
                    .mapTo(String.class).list());
            assertThat(plan).as("the plan of %s", statement).noneMatch(line -> line.contains("Seq Scan"));
        }

        tick(Duration.ofSeconds(61));
        tick(Duration.ofSeconds(61));
        assertThat(queues.liveEpochs()).as("the epoch was sealed").doesNotContain(epoch);
        long moved = jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM gantry_queue.message "
                + "WHERE queue = 'sealed'").mapTo(Long.class).one());
        assertThat(moved).as("the unfinished messages, moved forward").isEqualTo(5);
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
    void a_burst_is_vacuumed_from_its_live_epoch_once_and_not_again_until_more_rows_die() throws Exception {
        org.jdbi.v3.core.Jdbi jdbi = org.jdbi.v3.core.Jdbi.create(pg.dataSource());
        String partition = currentPartitionWithoutAutovacuum(jdbi);
        long vacuumsBefore = vacuumStats(jdbi, partition)[1];
        burst(jdbi, partition, "burst", 2_000);

        queues.maintain(); // the same instant: nothing to open or seal, only the vacuum
        long[] after = vacuumStats(jdbi, partition);
        assertThat(after[0]).as("dead row versions left").isLessThan(Epochs.VACUUM_AFTER_DEAD);
        assertThat(after[1]).as("vacuums").isEqualTo(vacuumsBefore + 1);

        queues.maintain();
        assertThat(vacuumStats(jdbi, partition)[1]).as("no second vacuum without new dead rows")
                .isEqualTo(vacuumsBefore + 1);
    }

    @Test
    void a_live_epoch_waits_for_the_snapshot_that_kept_its_dead_rows_before_it_is_vacuumed_again() throws Exception {
        org.jdbi.v3.core.Jdbi jdbi = org.jdbi.v3.core.Jdbi.create(pg.dataSource());
        String partition = currentPartitionWithoutAutovacuum(jdbi);
        long vacuumsBefore = vacuumStats(jdbi, partition)[1];
        try (Connection old = pg.dataSource().getConnection(); Statement s = old.createStatement()) {
            old.setAutoCommit(false);
            s.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
            s.executeQuery("SELECT txid_current()").close(); // holds back vacuum's horizon from here on
            burst(jdbi, partition, "held", 1_000);
            queues.maintain();
            long[] first = vacuumStats(jdbi, partition);
            assertThat(first[1]).as("vacuums").isEqualTo(vacuumsBefore + 1);
            assertThat(first[0]).as("dead row versions the snapshot kept").isGreaterThanOrEqualTo(2_000);

            burst(jdbi, partition, "held", 1_000);
            queues.maintain();
            assertThat(vacuumStats(jdbi, partition)[1]).as("no vacuum while the same snapshot keeps the rows")
                    .isEqualTo(vacuumsBefore + 1);
            old.rollback();
        }
        queues.maintain();
        long[] after = vacuumStats(jdbi, partition);
        assertThat(after[1]).as("vacuumed once the snapshot ended").isEqualTo(vacuumsBefore + 2);
        assertThat(after[0]).as("dead row versions left").isLessThan(Epochs.VACUUM_AFTER_DEAD);
    }

    @Test
    void a_long_vacuum_elsewhere_does_not_hold_back_the_live_epochs_vacuum() throws Exception {
        org.jdbi.v3.core.Jdbi jdbi = org.jdbi.v3.core.Jdbi.create(pg.dataSource());
        String partition = currentPartitionWithoutAutovacuum(jdbi);
        jdbi.useHandle(h -> {
            h.execute("CREATE TABLE IF NOT EXISTS slow_to_vacuum (n int) WITH (autovacuum_enabled = false)");
            h.execute("INSERT INTO slow_to_vacuum SELECT generate_series(1, 50000)");
        });
        long vacuumsBefore = vacuumStats(jdbi, partition)[1];
        try (Connection other = pg.dataSource().getConnection(); Statement s = other.createStatement()) {
            // A vacuum that sleeps after every page: it runs, with a snapshot, for the whole test.
            s.execute("SET vacuum_cost_limit = 1");
            s.execute("SET vacuum_cost_delay = '100ms'");
            Thread vacuuming = Thread.ofPlatform().start(() -> {
                try {
                    s.execute("VACUUM slow_to_vacuum");
                } catch (java.sql.SQLException cancelled) {
                    // cancelled below
                }
            });
            try {
                long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
                while (!vacuumRunning(jdbi) && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                assertThat(vacuumRunning(jdbi)).as("the other vacuum runs").isTrue();
                burst(jdbi, partition, "beside", 1_000);
                queues.maintain();
                burst(jdbi, partition, "beside", 1_000);
                queues.maintain();
                assertThat(vacuumStats(jdbi, partition)[1]).as("vacuums").isEqualTo(vacuumsBefore + 2);
            } finally {
                jdbi.useHandle(h -> h.execute("SELECT pg_cancel_backend(pid) FROM pg_stat_activity "
                        + "WHERE query = 'VACUUM slow_to_vacuum' AND pid <> pg_backend_pid()"));
                vacuuming.join();
                s.execute("RESET vacuum_cost_limit"); // the connection goes back to the pool
                s.execute("RESET vacuum_cost_delay");
            }
        }
    }

    private static boolean vacuumRunning(org.jdbi.v3.core.Jdbi jdbi) {
        return jdbi.withHandle(h -> h.createQuery("SELECT EXISTS (SELECT 1 FROM pg_stat_activity "
                + "WHERE query = 'VACUUM slow_to_vacuum' AND state = 'active' AND backend_xmin IS NOT NULL)")
                .mapTo(Boolean.class).one());
    }

    /** The current epoch's partition, with autovacuum off: it would skip maintenance's vacuum, and count its own. */
    private String currentPartitionWithoutAutovacuum(org.jdbi.v3.core.Jdbi jdbi) {
        String partition = "message_" + queues.liveEpochs().get(queues.liveEpochs().size() - 1);
        jdbi.useHandle(h -> h.execute("ALTER TABLE gantry_queue." + partition + " SET (autovacuum_enabled = false)"));
        return partition;
    }

    /**
     * Enqueues, claims and completes {@code messages} messages, and waits until the statistics show the two dead row
     * versions each left in {@code partition} (backends report their counts a moment after their transactions).
     */
    private void burst(org.jdbi.v3.core.Jdbi jdbi, String partition, String queue, int messages) throws Exception {
        long expected = vacuumStats(jdbi, partition)[0] + 2L * messages;
        jdbi.useTransaction(h -> queues.enqueueAll(h, java.util.Collections.nCopies(messages, NewMessage.to(queue))));
        List<Message> got;
        while (!(got = queues.claim(queue, "w", 500)).isEmpty()) {
            queues.completeAll(got);
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (vacuumStats(jdbi, partition)[0] < expected && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertThat(vacuumStats(jdbi, partition)[0]).as("dead row versions after the burst")
                .isGreaterThanOrEqualTo(expected);
    }

    /** The partition's dead row versions and how many times it was vacuumed by hand. */
    private static long[] vacuumStats(org.jdbi.v3.core.Jdbi jdbi, String partition) {
        return jdbi.withHandle(h -> h.createQuery("""
                        SELECT n_dead_tup, vacuum_count FROM pg_stat_user_tables
                        WHERE schemaname = 'gantry_queue' AND relname = :name
                        """).bind("name", partition)
                .map((rs, ctx) -> new long[] {rs.getLong(1), rs.getLong(2)}).one());
    }

    @Test
    void a_transaction_open_while_an_epoch_opens_goes_on_enqueuing() {
        org.jdbi.v3.core.Jdbi jdbi = org.jdbi.v3.core.Jdbi.create(pg.dataSource());
        int before = queues.liveEpochs().get(queues.liveEpochs().size() - 1);
        try (org.jdbi.v3.core.Handle caller = jdbi.open()) {
            caller.begin();
            queues.enqueue(caller, NewMessage.to("across")); // the caller's transaction now holds the hot table
            // The next epoch is attached meanwhile. The caller saw the partitions as they were when it took its
            // lock, so the epoch must not become current before the caller ends: its next enqueue would find no
            // partition for its row.
            tick(Duration.ofSeconds(61));
            assertThat(queues.liveEpochs().get(queues.liveEpochs().size() - 1)).as("current while the caller runs")
                    .isEqualTo(before);
            queues.enqueue(caller, NewMessage.to("across"));
            caller.commit();
        }
        tick(Duration.ZERO);
        assertThat(queues.liveEpochs().get(queues.liveEpochs().size() - 1)).as("current once the caller ended")
                .isEqualTo(before + 1);
        assertThat(queues.claim("across", "w", 10)).hasSize(2);
    }

    @Test
    void an_enqueue_that_meets_an_epoch_without_its_partition_is_refused_for_a_second_and_nothing_is_written() {
        org.jdbi.v3.core.Jdbi jdbi = org.jdbi.v3.core.Jdbi.create(pg.dataSource());
        int current = queues.liveEpochs().get(queues.liveEpochs().size() - 1);
        // What a statement that routed rows with the partitions it saw before the newest epoch was attached meets
        // (seen under the benchmark's load, about once in two hundred turns): an epoch without a partition for it.
        jdbi.useHandle(h -> h.execute("CREATE TABLE IF NOT EXISTS caller_write (v int)"));
        jdbi.useHandle(h -> h.execute("INSERT INTO gantry_queue.epoch (epoch, opened_at) VALUES (?, now())",
                current + 1));
        try {
            assertThatThrownBy(() -> jdbi.useTransaction(h -> {
                h.execute("INSERT INTO caller_write VALUES (1)");
                queues.enqueue(h, NewMessage.to("switching"));
            }))
                    .isInstanceOfSatisfying(QueueUnavailableException.class, e -> assertThat(e.retryAfter())
                            .isEqualTo(Duration.ofSeconds(1)))
                    .hasMessageContaining("switching to a new epoch");
            assertThatThrownBy(() -> queues.enqueue(NewMessage.to("switching")))
                    .as("retried at once in a transaction of its own, then refused the same way")
                    .isInstanceOf(QueueUnavailableException.class);
            int callerRows = jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM caller_write")
                    .mapTo(Integer.class).one());
            assertThat(callerRows).as("the caller's write").isZero();
        } finally {
            jdbi.useHandle(h -> h.execute("DELETE FROM gantry_queue.epoch WHERE epoch = ?", current + 1));
        }
        queues.enqueue(NewMessage.to("switching"));
        List<Message> got = queues.claim("switching", "w", 10);
        assertThat(got).as("the one enqueue once the epoch is gone again").hasSize(1);
        got.forEach(queues::complete); // the class shares its epochs: leave none unfinished
    }

    @Test
    void a_completion_that_meets_its_message_moving_to_a_newer_epoch_completes_it_there() throws Exception {
        org.jdbi.v3.core.Jdbi jdbi = org.jdbi.v3.core.Jdbi.create(pg.dataSource());
        long id = queues.enqueue(NewMessage.to("moving")).id();
        Message held = queues.claim("moving", "w", 1).get(0);
        int epoch = queues.liveEpochs().get(queues.liveEpochs().size() - 1);
        tick(Duration.ofSeconds(61));
        try (org.jdbi.v3.core.Handle seal = jdbi.open()) {
            seal.begin();
            // What a seal does to a running message, held open so that the completion waits for it and then finds
            // the row gone to another partition (PostgreSQL aborts such a statement with a serialisation failure).
            seal.execute("UPDATE gantry_queue.message SET epoch = ? WHERE id = ? AND epoch = ?", epoch + 1, id, epoch);
            java.util.concurrent.CompletableFuture<Void> completion =
                    java.util.concurrent.CompletableFuture.runAsync(() -> queues.complete(held));
            awaitLockWait(jdbi);
            seal.commit();
            completion.get(10, java.util.concurrent.TimeUnit.SECONDS);
        }
        assertThat(queues.state(id)).contains(MessageState.DONE);
    }

    @Test
    void a_seal_that_could_not_finish_its_detach_finishes_it_next_turn_and_keeps_what_arrived_meanwhile()
            throws Exception {
        org.jdbi.v3.core.Jdbi jdbi = org.jdbi.v3.core.Jdbi.create(pg.dataSource());
        long waiting = queues.enqueue(NewMessage.to("detaching")).id();
        int epoch = queues.liveEpochs().get(queues.liveEpochs().size() - 1);
        String partition = "message_" + epoch;
        tick(Duration.ofSeconds(61));
        try (org.jdbi.v3.core.Handle late = jdbi.open()) {
            late.begin();
            // A message written straight into the epoch's table by a transaction still open at the seal: the
            // detach cannot finish while it runs, and the message is not there yet when the seal moves the rest.
            late.execute("INSERT INTO gantry_queue." + partition + " (epoch, id, queue, state, priority, group_key, "
                    + "run_at, attempt, max_attempts, payload, enqueued_at) VALUES (" + epoch + ", "
                    + "nextval('gantry_queue.message_id'), 'detaching', 0, 0, '', timestamptz '2020-01-01', 0, 3, "
                    + "'late', now())");
            tick(Duration.ofSeconds(61));
            assertThat(detachPending(jdbi, partition)).as("detach left pending by the open transaction").isTrue();
            late.commit();
        }
        tick(Duration.ZERO);
        assertThat(queues.liveEpochs()).doesNotContain(epoch);
        assertThat(detachPending(jdbi, partition)).as("detached from the hot table").isNull();
        List<Message> claimed = queues.claim("detaching", "w", 10);
        assertThat(claimed).extracting(Message::payload).containsExactlyInAnyOrder("", "late");
        assertThat(claimed).extracting(Message::id).contains(waiting);
    }

    @Test
    void while_its_epoch_moves_to_the_archive_a_message_is_still_found_by_its_unique_key_and_its_id() {
        org.jdbi.v3.core.Jdbi jdbi = org.jdbi.v3.core.Jdbi.create(pg.dataSource());
        Enqueued first = queues.enqueue(NewMessage.to("archiving").uniqueKey("once"));
        queues.complete(queues.claim("archiving", "w", 1).get(0));
        long dead = queues.enqueue(NewMessage.to("archiving").maxAttempts(1)).id();
        queues.fail(queues.claim("archiving", "w", 1).get(0), "broken", false);
        int epoch;
        try (org.jdbi.v3.core.Handle reader = jdbi.open()) {
            // Detached from the hot table but not yet in the archive, until the next turn.
            epoch = sealWithDetachPending(jdbi, reader);
            assertThat(queues.enqueue(NewMessage.to("archiving").uniqueKey("once")))
                    .as("a duplicate enqueue still finds the message").isEqualTo(new Enqueued(first.id(), false));
            assertThat(queues.state(first.id())).contains(MessageState.DONE);
            assertThat(queues.dead("archiving", 10)).extracting(DeadMessage::id).containsExactly(dead);
            assertThat(queues.replay(dead)).as("a dead message can still be replayed").isTrue();
            assertThat(queues.state(dead)).contains(MessageState.READY);
            reader.commit();
        }
        tick(Duration.ZERO);
        assertThat(queues.liveEpochs()).doesNotContain(epoch);
        List<Message> replayed = queues.claim("archiving", "w", 10);
        assertThat(replayed).extracting(Message::id).containsExactly(dead);
        queues.complete(replayed.get(0));
        assertThat(queues.state(dead)).contains(MessageState.DONE);
        assertThat(queues.enqueue(NewMessage.to("archiving").uniqueKey("once")))
                .isEqualTo(new Enqueued(first.id(), false));
        assertThat(queues.state(first.id())).contains(MessageState.DONE);
    }

    @Test
    void a_replayed_message_moves_to_the_newest_epoch_so_no_old_epoch_gains_work_while_it_is_sealed() {
        org.jdbi.v3.core.Jdbi jdbi = org.jdbi.v3.core.Jdbi.create(pg.dataSource());
        long id = queues.enqueue(NewMessage.to("replayed").maxAttempts(1)).id();
        queues.fail(queues.claim("replayed", "w", 1).get(0), "broken", false);
        int epoch = queues.liveEpochs().get(queues.liveEpochs().size() - 1);
        tick(Duration.ofSeconds(61));
        int newest = queues.liveEpochs().get(queues.liveEpochs().size() - 1);
        assertThat(newest).isGreaterThan(epoch);

        assertThat(queues.replay(id)).isTrue();
        int lives = jdbi.withHandle(h -> h.createQuery("SELECT epoch FROM gantry_queue.message WHERE id = :id")
                .bind("id", id).mapTo(Integer.class).one());
        assertThat(lives).as("a message ready again in an epoch whose seal has moved the rest would be claimed there "
                + "and its completion lost once the epoch is detached").isEqualTo(newest);
        List<Message> again = queues.claim("replayed", "w", 1);
        assertThat(again).extracting(Message::id).containsExactly(id);
        queues.complete(again.get(0));
    }

    @Test
    void later_epochs_wait_for_a_pending_detach_since_a_table_can_have_only_one() throws Exception {
        org.jdbi.v3.core.Jdbi jdbi = org.jdbi.v3.core.Jdbi.create(pg.dataSource());
        int epoch;
        try (org.jdbi.v3.core.Handle reader = jdbi.open()) {
            epoch = sealWithDetachPending(jdbi, reader);
            tick(Duration.ofSeconds(61)); // the next epoch is due as well, and waits its turn
            assertThat(queues.liveEpochs()).contains(epoch, epoch + 1);
            reader.commit();
        }
        tick(Duration.ZERO);
        assertThat(queues.liveEpochs()).doesNotContain(epoch, epoch + 1);
    }

    @Test
    void a_seal_never_asks_for_a_lock_on_the_hot_table_that_queue_statements_would_wait_behind() throws Exception {
        int due = queues.liveEpochs().get(queues.liveEpochs().size() - 1);
        queues.enqueue(NewMessage.to("waiting"));
        tick(Duration.ofSeconds(61));
        clock.advance(Duration.ofSeconds(61)); // the epoch is due for sealing at the next turn
        // The detach waits for the reader, then leaves the rest to the next turn.
        List<String> waits = lockRequestsWaitingOn("gantry_queue.message", queues::maintain);
        assertThat(waits).as("lock requests on the hot table left waiting").isEmpty();
        tick(Duration.ZERO);
        assertThat(queues.liveEpochs()).doesNotContain(due);
        assertThat(queues.claim("waiting", "w", 10)).hasSize(1);
    }

    @Test
    void dropping_an_epoch_never_asks_for_a_lock_on_the_archive_that_key_lookups_would_wait_behind() throws Exception {
        org.jdbi.v3.core.Jdbi jdbi = org.jdbi.v3.core.Jdbi.create(pg.dataSource());
        int expiring = queues.liveEpochs().get(queues.liveEpochs().size() - 1);
        long done = queues.enqueue(NewMessage.to("expiring").uniqueKey("once")).id();
        queues.complete(queues.claim("expiring", "w", 1).get(0));
        tick(Duration.ofSeconds(61));
        tick(Duration.ofSeconds(61));
        assertThat(queues.liveEpochs()).as("the epoch was archived").doesNotContain(expiring);
        clock.advance(Duration.ofMinutes(11)); // past retention: dropped at the next turn
        // The detach waits for the reader, then leaves the rest to the next turn.
        List<String> waits = lockRequestsWaitingOn("gantry_queue.message_archive", queues::maintain);
        assertThat(waits).as("lock requests on the archive left waiting").isEmpty();
        int pending = jdbi.withHandle(h -> h.createQuery("""
                SELECT count(*) FROM pg_inherits
                WHERE inhparent = CAST('gantry_queue.message_archive' AS regclass) AND inhdetachpending
                """).mapTo(Integer.class).one());
        assertThat(pending).as("detaches from the archive left pending by the reader").isEqualTo(1);
        tick(Duration.ofSeconds(61)); // finishes the drop, and seals the next epoch into the archive meanwhile
        assertThat(queues.liveEpochs()).as("epochs sealed while the drop was pending").hasSizeLessThanOrEqualTo(2);
        assertThat(queues.state(done)).as("dropped with its epoch").isEmpty();
        assertThat(queues.enqueue(NewMessage.to("expiring").uniqueKey("once")).created())
                .as("its unique key is free again").isTrue();
    }

    /**
     * Runs {@code action} while another transaction holds {@code table} as a statement in flight does, and returns the
     * modes of the lock requests on {@code table} seen waiting meanwhile (sampled every 2 ms): every statement that
     * arrives behind such a request waits too.
     */
    private static List<String> lockRequestsWaitingOn(String table, Runnable action) throws InterruptedException {
        org.jdbi.v3.core.Jdbi jdbi = org.jdbi.v3.core.Jdbi.create(pg.dataSource());
        List<String> waits = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        try (org.jdbi.v3.core.Handle reader = jdbi.open()) {
            reader.begin();
            reader.createQuery("SELECT count(*) FROM " + table).mapTo(Long.class).one();
            java.util.concurrent.atomic.AtomicBoolean acting = new java.util.concurrent.atomic.AtomicBoolean(true);
            Thread sampler = Thread.ofPlatform().start(() -> {
                try (org.jdbi.v3.core.Handle h = jdbi.open()) {
                    while (acting.get()) {
                        waits.addAll(h.createQuery("""
                                SELECT mode FROM pg_locks WHERE NOT granted AND locktype = 'relation'
                                  AND relation = CAST(:table AS regclass)
                                """).bind("table", table).mapTo(String.class).list());
                        Thread.sleep(2);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            try {
                action.run();
            } finally {
                acting.set(false);
                sampler.join();
            }
            reader.commit();
        }
        return waits;
    }

    /**
     * Seals the newest epoch with its detach left pending: {@code reader} holds the epoch's own table (not the hot
     * table) in a transaction, so the detach cannot finish until it commits.
     */
    private int sealWithDetachPending(org.jdbi.v3.core.Jdbi jdbi, org.jdbi.v3.core.Handle reader) {
        int epoch = queues.liveEpochs().get(queues.liveEpochs().size() - 1);
        tick(Duration.ofSeconds(61));
        reader.begin();
        reader.execute("LOCK TABLE gantry_queue.message_" + epoch + " IN ACCESS SHARE MODE");
        tick(Duration.ofSeconds(61));
        assertThat(detachPending(jdbi, "message_" + epoch)).isTrue();
        return epoch;
    }

    /** Whether {@code partition}'s detach from the hot table is pending; null once it is not attached there. */
    private static Boolean detachPending(org.jdbi.v3.core.Jdbi jdbi, String partition) {
        return jdbi.withHandle(h -> h.createQuery("""
                        SELECT i.inhdetachpending FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
                        WHERE i.inhparent = CAST('gantry_queue.message' AS regclass) AND c.relname = :name
                        """).bind("name", partition).mapTo(Boolean.class).findOne().orElse(null));
    }

    /** Waits until some session of this database waits for a lock. */
    private static void awaitLockWait(org.jdbi.v3.core.Jdbi jdbi) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!jdbi.withHandle(h -> h.createQuery("SELECT EXISTS (SELECT 1 FROM pg_stat_activity "
                + "WHERE datname = current_database() AND wait_event_type = 'Lock')").mapTo(Boolean.class).one())) {
            assertThat(System.nanoTime() - deadline).as("a session waits for a lock").isNegative();
            Thread.sleep(10);
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
        assertThat(queues.liveEpochs()).as("not moved forward turn after turn").contains(backlogEpoch);

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
