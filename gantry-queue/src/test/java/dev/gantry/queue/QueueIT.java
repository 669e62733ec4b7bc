package dev.gantry.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gantry.testkit.EmbeddedPostgresExtension;
import dev.gantry.testkit.ManualClock;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.random.RandomGenerator;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The queue's contract on a real embedded PostgreSQL, with time driven by hand. */
class QueueIT {
    @RegisterExtension
    static final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension();

    private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
    private Queues queues;

    @AfterEach
    void stop() {
        queues.close();
    }

    @BeforeEach
    void start() {
        queues = Queues.start(pg.dataSource(), QueueSettings.defaults().withClock(clock)
                .withRandom(RandomGenerator.of("L64X128MixRandom")).withLease(Duration.ofSeconds(30))
                .withRetry(Duration.ofSeconds(1), Duration.ofSeconds(60)));
        pg.truncate("gantry_queue.message", "gantry_queue.queue");
    }

    @Test
    void a_claimed_message_completes_once() {
        long id = queues.enqueue(NewMessage.to("builds").payload("{\"job\":1}")).id();
        List<Message> claimed = queues.claim("builds", "w1", 10);
        assertThat(claimed).singleElement().satisfies(m -> {
            assertThat(m.id()).isEqualTo(id);
            assertThat(m.payload()).isEqualTo("{\"job\":1}");
            assertThat(m.attempt()).isEqualTo(1);
        });
        queues.complete(claimed.get(0));
        assertThat(queues.state(id)).contains(MessageState.DONE);
        assertThat(queues.claim("builds", "w1", 10)).isEmpty();
        assertThatThrownBy(() -> queues.complete(claimed.get(0))).isInstanceOf(LeaseLostException.class);
    }

    @Test
    void a_batch_completion_commits_the_held_messages_and_skips_stale_ones() {
        queues.enqueue(NewMessage.to("builds"));
        queues.enqueue(NewMessage.to("builds"));
        List<Message> held = queues.claim("builds", "w1", 2);
        Message stale = new Message(held.get(1).id(), "builds", "", null, "", 0, 99, 5, Instant.EPOCH, Instant.EPOCH,
                null);
        assertThat(queues.completeAll(List.of(held.get(0), stale))).containsExactly(held.get(0));
        assertThat(queues.state(held.get(0).id())).contains(MessageState.DONE);
        assertThat(queues.state(held.get(1).id())).contains(MessageState.RUNNING);
    }

    @Test
    void a_batch_enqueue_keeps_order_and_every_field_and_honours_unique_keys_among_them() {
        long existing = queues.enqueue(NewMessage.to("builds").uniqueKey("k1")).id();
        Instant later = clock.instant().plusSeconds(60);
        List<NewMessage> batch = List.of(
                NewMessage.to("builds").payload("a").priority(3).group("acme").maxAttempts(2),
                NewMessage.to("builds").payload("b").runAt(later),
                NewMessage.to("builds").payload("dup").uniqueKey("k1"),
                NewMessage.to("other").payload("c"),
                NewMessage.to("builds").payload("d").uniqueKey("k2"),
                NewMessage.to("builds").payload("e"));
        List<Enqueued> out = Jdbi.create(pg.dataSource()).inTransaction(h -> queues.enqueueAll(h, batch));

        assertThat(out).hasSize(6);
        assertThat(out.get(2)).isEqualTo(new Enqueued(existing, false));
        assertThat(out).extracting(Enqueued::created).containsExactly(true, true, false, true, true, true);
        List<Long> created = out.stream().filter(Enqueued::created).map(Enqueued::id).toList();
        assertThat(created).as("ids rise in list order").isSorted().doesNotHaveDuplicates();

        List<Message> ready = queues.claim("builds", "w1", 10);
        assertThat(ready.get(0).payload()).isEqualTo("a");
        // Sessions take ids in blocks, so across sessions ids say nothing about order; within the batch they do.
        assertThat(ready).extracting(Message::payload).containsExactlyInAnyOrder("a", "", "d", "e");
        assertThat(ready.get(0)).satisfies(m -> {
            assertThat(m.id()).isEqualTo(out.get(0).id());
            assertThat(m.priority()).isEqualTo(3);
            assertThat(m.group()).isEqualTo("acme");
            assertThat(m.maxAttempts()).isEqualTo(2);
        });
        assertThat(queues.claim("other", "w1", 10)).extracting(Message::id).containsExactly(out.get(3).id());
        clock.advance(Duration.ofSeconds(60));
        assertThat(queues.claim("builds", "w1", 10)).extracting(Message::id).containsExactly(out.get(1).id());
    }

    @Test
    void completing_a_batch_finds_its_messages_by_primary_key_whatever_the_statistics_say() throws SQLException {
        Jdbi jdbi = Jdbi.create(pg.dataSource());
        // One session throughout, as a worker's connection would be: its generic plan is made at the first call and
        // kept until the partitions change. Made while the epoch was nearly empty, it must not read the whole epoch
        // once the load arrives.
        jdbi.useHandle(h -> {
            h.execute("LOAD 'auto_explain'"); // logs the plan of the function's UPDATE, which the session gets as a warning
            h.execute("SET auto_explain.log_min_duration = 0");
            h.execute("SET auto_explain.log_nested_statements = on");
            h.execute("SET client_min_messages = log");
            try {
                jdbi.useTransaction(tx -> queues.enqueueAll(tx, Collections.nCopies(5, NewMessage.to("builds"))));
                assertCompletionReadsThePrimaryKey(h, queues.claim("builds", "w1", 5));
                // A young partition has no statistics yet: the planner guesses its size from its pages.
                jdbi.useTransaction(tx -> queues.enqueueAll(tx, Collections.nCopies(50_000, NewMessage.to("builds"))));
                assertCompletionReadsThePrimaryKey(h, queues.claim("builds", "w1", 200));
                // Statistics taken when the epoch was young and next to nothing was running, then the load arrives.
                h.execute("ANALYZE gantry_queue.message");
                jdbi.useTransaction(tx -> queues.enqueueAll(tx, Collections.nCopies(20_000, NewMessage.to("builds"))));
                assertCompletionReadsThePrimaryKey(h, queues.claim("builds", "w1", Worker.MAX_COMPLETION_BATCH));
            } finally {
                h.execute("RESET ALL"); // the connection goes back to the pool
            }
        });
    }

    /** Completes {@code held} as {@link Queues#completeAll} does, in {@code h}, whose session logs plans. */
    private void assertCompletionReadsThePrimaryKey(Handle h, List<Message> held) throws SQLException {
        Connection c = h.getConnection();
        String plan;
        try (PreparedStatement s = c.prepareStatement(MessageSql.COMPLETE_ALL.replaceAll(":\\w+", "?"))) {
            s.setArray(1, c.createArrayOf("bigint", held.stream().map(Message::id).toArray()));
            s.setArray(2, c.createArrayOf("integer", held.stream().map(Message::attempt).toArray()));
            s.setObject(3, Queues.ts(clock.instant()));
            int done = 0;
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    done++;
                }
            }
            assertThat(done).as("completed").isEqualTo(held.size());
            StringBuilder logged = new StringBuilder();
            for (SQLWarning w = s.getWarnings(); w != null; w = w.getNextWarning()) {
                logged.append(w.getMessage()).append('\n');
            }
            plan = logged.toString();
        }
        int from = plan.indexOf("\nUpdate on");
        assertThat(from).as("the UPDATE's plan in what was logged:\n" + plan).isNotNegative();
        String update = plan.substring(from, plan.indexOf("duration:", from));
        // A generic plan keeps the function's parameters ($1); a custom one shows the ids. No join either: one against
        // the ids probed the index once per id, sorting all the ids each time.
        assertThat(update).as("the plan for " + held.size()).contains("_pkey", "ANY ($1)")
                .doesNotContain("Seq Scan", "lease_until", "run_at", "Nested Loop", "Join");
    }

    @Test
    void a_duplicate_unique_key_returns_the_first_message() {
        Enqueued first = queues.enqueue(NewMessage.to("builds").uniqueKey("delivery-42"));
        Enqueued second = queues.enqueue(NewMessage.to("builds").uniqueKey("delivery-42"));
        assertThat(first.created()).isTrue();
        assertThat(second).isEqualTo(new Enqueued(first.id(), false));
        assertThat(queues.enqueue(NewMessage.to("other").uniqueKey("delivery-42")).created()).isTrue();
    }

    @Test
    void concurrent_enqueues_of_one_key_create_one_message() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<Enqueued>> results = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                results.add(pool.submit(() -> queues.enqueue(NewMessage.to("builds").uniqueKey("same"))));
            }
            Set<Long> ids = new HashSet<>();
            int created = 0;
            for (Future<Enqueued> f : results) {
                ids.add(f.get().id());
                created += f.get().created() ? 1 : 0;
            }
            assertThat(ids).hasSize(1);
            assertThat(created).isEqualTo(1);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void an_enqueue_rolls_back_with_the_callers_transaction() {
        Jdbi jdbi = Jdbi.create(pg.dataSource());
        assertThatThrownBy(() -> jdbi.useTransaction(h -> {
            queues.enqueue(h, NewMessage.to("builds").payload("lost"));
            throw new IllegalStateException("the caller's own write failed");
        })).isInstanceOf(IllegalStateException.class);
        assertThat(queues.claim("builds", "w1", 10)).isEmpty();

        long id = jdbi.inTransaction(h -> queues.enqueue(h, NewMessage.to("builds").payload("kept")).id());
        assertThat(queues.claim("builds", "w1", 10)).extracting(Message::id).containsExactly(id);
    }

    @Test
    void concurrent_claimers_never_hold_the_same_message() throws Exception {
        Jdbi.create(pg.dataSource()).useTransaction(h -> {
            List<NewMessage> batch = new ArrayList<>();
            for (int i = 0; i < 500; i++) {
                batch.add(NewMessage.to("builds").payload("m" + i));
            }
            queues.enqueueAll(h, batch);
        });
        ExecutorService pool = Executors.newFixedThreadPool(6);
        List<Long> seen = Collections.synchronizedList(new ArrayList<>());
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (int w = 0; w < 6; w++) {
                String name = "w" + w;
                workers.add(pool.submit(() -> {
                    List<Message> got;
                    while (!(got = queues.claim("builds", name, 7)).isEmpty()) {
                        for (Message m : got) {
                            seen.add(m.id());
                            queues.complete(m);
                        }
                    }
                }));
            }
            for (Future<?> f : workers) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(seen).hasSize(500).doesNotHaveDuplicates();
    }

    @Test
    void higher_priority_is_claimed_first_then_the_oldest() {
        long low = queues.enqueue(NewMessage.to("builds").priority(0)).id();
        long high = queues.enqueue(NewMessage.to("builds").priority(5)).id();
        long lowLater = queues.enqueue(NewMessage.to("builds").priority(0)).id();
        assertThat(queues.claim("builds", "w1", 1)).extracting(Message::id).containsExactly(high);
        assertThat(queues.claim("builds", "w1", 1)).extracting(Message::id).containsExactly(low);
        assertThat(queues.claim("builds", "w1", 1)).extracting(Message::id).containsExactly(lowLater);
    }

    @Test
    void groups_take_turns_so_a_flood_does_not_starve_a_small_tenant() {
        Jdbi.create(pg.dataSource()).useTransaction(h -> {
            List<NewMessage> flood = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                flood.add(NewMessage.to("builds").group("big-org"));
            }
            queues.enqueueAll(h, flood);
        });
        clock.advance(Duration.ofSeconds(1));
        queues.enqueue(NewMessage.to("builds").group("small-org"));
        queues.enqueue(NewMessage.to("builds").group("small-org"));
        queues.enqueue(NewMessage.to("builds").group("other-org"));

        List<String> first = queues.claim("builds", "w1", 4).stream().map(Message::group).toList();
        List<String> second = queues.claim("builds", "w1", 4).stream().map(Message::group).toList();
        assertThat(first).contains("big-org", "small-org", "other-org");
        assertThat(second).contains("small-org", "big-org").doesNotContain("other-org");
    }

    @Test
    void priority_still_comes_before_turns() {
        queues.enqueue(NewMessage.to("builds").group("a"));
        queues.enqueue(NewMessage.to("builds").group("b"));
        long urgent = queues.enqueue(NewMessage.to("builds").group("a").priority(9)).id();
        assertThat(queues.claim("builds", "w1", 1)).extracting(Message::id).containsExactly(urgent);
    }

    @Test
    void a_message_is_not_claimed_before_its_run_at() {
        long id = queues.enqueue(NewMessage.to("builds").runAt(clock.instant().plusSeconds(60))).id();
        assertThat(queues.claim("builds", "w1", 1)).isEmpty();
        clock.advance(Duration.ofSeconds(60));
        assertThat(queues.claim("builds", "w1", 1)).extracting(Message::id).containsExactly(id);
    }

    @Test
    void a_rescued_message_cannot_be_finished_by_its_old_holder() {
        queues.enqueue(NewMessage.to("builds"));
        Message first = queues.claim("builds", "slow", 1).get(0);
        clock.advance(Duration.ofSeconds(31));
        assertThat(queues.rescueExpired(100)).isEqualTo(1);
        Message second = queues.claim("builds", "fast", 1).get(0);
        assertThat(second.attempt()).isEqualTo(2);
        assertThat(second.lastError()).contains("lease expired at attempt 1 held by slow");

        assertThatThrownBy(() -> queues.complete(first)).isInstanceOf(LeaseLostException.class);
        assertThatThrownBy(() -> queues.heartbeat(first)).isInstanceOf(LeaseLostException.class);
        queues.complete(second);
        assertThat(queues.state(second.id())).contains(MessageState.DONE);
    }

    @Test
    void a_restarted_holders_messages_are_released_at_once_and_others_keep_theirs() {
        queues.enqueue(NewMessage.to("builds"));
        queues.enqueue(NewMessage.to("builds"));
        Message crashed = queues.claim("builds", "plan@server-1", 1).get(0);
        Message alive = queues.claim("builds", "plan@server-2", 1).get(0);

        assertThat(queues.releaseHeldBy(List.of("plan@server-1", "orchestrator@server-1"))).isEqualTo(1);

        Message again = queues.claim("builds", "plan@server-1", 1).get(0);
        assertThat(again.id()).isEqualTo(crashed.id());
        assertThat(again.attempt()).isEqualTo(2);
        assertThat(again.lastError()).contains("released at attempt 1").contains("plan@server-1");
        assertThatThrownBy(() -> queues.complete(crashed)).isInstanceOf(LeaseLostException.class);
        queues.complete(alive);
        queues.complete(again);
        assertThat(queues.releaseHeldBy(List.of("plan@server-1"))).isZero();
    }

    @Test
    void a_heartbeat_keeps_the_lease_from_being_rescued() {
        queues.enqueue(NewMessage.to("builds"));
        Message m = queues.claim("builds", "w1", 1).get(0);
        clock.advance(Duration.ofSeconds(20));
        queues.heartbeat(m);
        clock.advance(Duration.ofSeconds(20));
        assertThat(queues.rescueExpired(100)).isZero();
        queues.complete(m);
    }

    @Test
    void a_batch_heartbeat_extends_the_held_leases_and_skips_stale_deliveries() {
        queues.enqueue(NewMessage.to("builds"));
        queues.enqueue(NewMessage.to("builds"));
        List<Message> held = queues.claim("builds", "w1", 2);
        clock.advance(Duration.ofSeconds(10));
        queues.heartbeat(held.get(0));
        clock.advance(Duration.ofSeconds(21)); // the second's 30-s lease ran out; the first's runs 9 s more
        assertThat(queues.rescueExpired(100)).isEqualTo(1);
        Message again = queues.claim("builds", "w2", 1).get(0);
        assertThat(again.id()).isEqualTo(held.get(1).id());

        // The stale delivery and the redelivery of one message differ by attempt only.
        assertThat(queues.heartbeatAll(List.of(held.get(0), held.get(1), again)))
                .containsExactlyInAnyOrder(held.get(0), again);
        clock.advance(Duration.ofSeconds(25)); // both leases were renewed for 30 s
        assertThat(queues.rescueExpired(100)).isZero();
        assertThat(queues.completeAll(List.of(held.get(0), again))).hasSize(2);
    }

    @Test
    void retries_back_off_with_jitter_then_dead_letter_with_the_reason() {
        long id = queues.enqueue(NewMessage.to("builds").maxAttempts(3)).id();
        for (int attempt = 1; attempt <= 2; attempt++) {
            Message m = queues.claim("builds", "w1", 1).get(0);
            assertThat(m.attempt()).isEqualTo(attempt);
            assertThat(queues.fail(m, "webhook answered 502", true)).isTrue();
            // full jitter: the retry is due somewhere in [0, base * 2^(attempt-1)]
            clock.advance(Duration.ofSeconds(1L << (attempt - 1)));
        }
        Message last = queues.claim("builds", "w1", 1).get(0);
        assertThat(last.lastAttempt()).isTrue();
        assertThat(queues.fail(last, "webhook answered 502", true)).isFalse();
        assertThat(queues.state(id)).contains(MessageState.DEAD);
        assertThat(queues.claim("builds", "w1", 1)).isEmpty();

        assertThat(queues.replay(id)).isTrue();
        Message again = queues.claim("builds", "w1", 1).get(0);
        assertThat(again.attempt()).as("attempts keep counting, with a fresh allowance").isEqualTo(4);
        assertThat(again.lastAttempt()).isFalse();
        assertThat(again.lastError()).isEqualTo("webhook answered 502");
        assertThat(queues.replay(id)).isFalse();
    }

    @Test
    void dead_messages_are_listed_with_their_reasons_the_latest_first_until_replayed() {
        long first = queues.enqueue(NewMessage.to("hooks").payload("a").maxAttempts(1)).id();
        long second = queues.enqueue(NewMessage.to("hooks").payload("b").maxAttempts(1)).id();
        queues.enqueue(NewMessage.to("hooks").payload("c"));
        queues.enqueue(NewMessage.to("other").payload("d").maxAttempts(1));
        queues.fail(queues.claim("hooks", "w", 1).get(0), "webhook answered 410", false);
        clock.advance(Duration.ofSeconds(1));
        queues.fail(queues.claim("hooks", "w", 1).get(0), "webhook answered 502", true); // its last attempt
        queues.fail(queues.claim("other", "w", 1).get(0), "elsewhere", false);

        Instant now = clock.instant();
        assertThat(queues.dead("hooks", 10)).containsExactly(
                new DeadMessage(second, "hooks", "b", 1, "webhook answered 502", now),
                new DeadMessage(first, "hooks", "a", 1, "webhook answered 410", now.minusSeconds(1)));
        assertThat(queues.dead("hooks", 1)).extracting(DeadMessage::id).containsExactly(second);
        assertThat(queues.replay(second)).isTrue();
        assertThat(queues.dead("hooks", 10)).extracting(DeadMessage::id).containsExactly(first);
        assertThat(queues.dead("nothing-here", 10)).isEmpty();
        assertThatThrownBy(() -> queues.dead("hooks", 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void a_holder_from_before_a_replay_cannot_finish_the_replayed_delivery() {
        queues.enqueue(NewMessage.to("builds").maxAttempts(1));
        Message slow = queues.claim("builds", "slow", 1).get(0);
        clock.advance(Duration.ofSeconds(31));
        queues.rescueExpired(10); // out of attempts: dead
        assertThat(queues.replay(slow.id())).isTrue();
        Message fresh = queues.claim("builds", "fresh", 1).get(0);
        assertThatThrownBy(() -> queues.complete(slow)).isInstanceOf(LeaseLostException.class);
        queues.complete(fresh);
        assertThat(queues.state(fresh.id())).contains(MessageState.DONE);
    }

    @Test
    void a_fatal_failure_dead_letters_at_once() {
        long id = queues.enqueue(NewMessage.to("builds").maxAttempts(5)).id();
        assertThat(queues.fail(queues.claim("builds", "w1", 1).get(0), "config is invalid", false)).isFalse();
        assertThat(queues.state(id)).contains(MessageState.DEAD);
    }

    @Test
    void a_paused_queue_hands_out_nothing_until_resumed() {
        queues.enqueue(NewMessage.to("builds"));
        queues.enqueue(NewMessage.to("notify"));
        queues.pause("builds");
        assertThat(queues.claim("builds", "w1", 10)).isEmpty();
        assertThat(queues.claim("notify", "w1", 10)).hasSize(1);
        queues.enqueue(NewMessage.to("builds"));
        queues.resume("builds");
        assertThat(queues.claim("builds", "w1", 10)).hasSize(2);
    }

    @Test
    void bad_names_and_limits_are_refused_with_the_rule() {
        assertThatThrownBy(() -> NewMessage.to("Has Spaces")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("queue name");
        assertThatThrownBy(() -> queues.claim("builds", "w1", 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> NewMessage.to("builds").maxAttempts(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
