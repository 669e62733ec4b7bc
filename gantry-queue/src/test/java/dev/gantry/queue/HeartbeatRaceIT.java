package dev.gantry.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gantry.testkit.EmbeddedPostgresExtension;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Completions racing heartbeats of the same messages, on the embedded PostgreSQL. PostgreSQL 18.1 sometimes let an
 * {@code UPDATE} that waited for a concurrent update of its row skip the row once the wait ended: a completion that
 * met a heartbeat of one of its messages then missed it, and the message looked claimed twice (its row held the
 * heartbeat's later lease at the same attempt). 18.2 no longer does. This drives the completion statement itself, as
 * {@link Queues#completeAll} would hide a miss behind its second look. With 18.1 it failed in each of three
 * runs (422 and 607 messages missed in the two that were counted).
 */
class HeartbeatRaceIT {
    @RegisterExtension
    static final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension(10);

    private static final String QUEUE = "racing";
    private static final int BATCH = 500;

    @Test
    void a_completion_completes_every_message_it_holds_while_heartbeats_extend_their_leases() throws Exception {
        Queues queues = Queues.start(pg.dataSource(), QueueSettings.defaults().withLease(Duration.ofHours(1)));
        Jdbi jdbi = Jdbi.create(pg.dataSource());
        ConcurrentLinkedQueue<Message> handled = new ConcurrentLinkedQueue<>();
        CopyOnWriteArrayList<Message> held = new CopyOnWriteArrayList<>();
        LongAdder completed = new LongAdder();
        LongAdder heartbeats = new LongAdder();
        List<String> missed = new CopyOnWriteArrayList<>();
        Throwable failure;
        try (Load load = new Load()) {
            load.repeat("claimer", () -> {
                if (handled.size() >= 5 * BATCH) {
                    Thread.onSpinWait();
                    return;
                }
                List<NewMessage> batch = new ArrayList<>();
                for (int i = 0; i < 100; i++) {
                    batch.add(NewMessage.to(QUEUE));
                }
                jdbi.useTransaction(h -> queues.enqueueAll(h, batch));
                List<Message> claimed = queues.claim(QUEUE, "racer", 100);
                held.addAll(claimed);
                handled.addAll(claimed);
            });
            load.repeat("heartbeater", () -> {
                List<Message> now = List.copyOf(held);
                if (now.isEmpty()) {
                    return;
                }
                Message m = now.get(ThreadLocalRandom.current().nextInt(now.size()));
                jdbi.useTransaction(h -> h.createQuery(MessageSql.EXTEND_ALL)
                        .bindArray("ids", Long.class, m.id()).bindArray("attempts", Integer.class, m.attempt())
                        .bind("leaseUntil", Queues.ts(Instant.now().plusSeconds(3600))).mapTo(Long.class).list());
                heartbeats.increment();
            });
            load.repeat("completer", () -> {
                List<Message> batch = new ArrayList<>();
                for (Message m; batch.size() < BATCH && (m = handled.poll()) != null; ) {
                    batch.add(m);
                }
                if (batch.isEmpty()) {
                    return;
                }
                // One statement, as the first look in Queues.completeAll runs it.
                List<Long> done = jdbi.inTransaction(h -> h.createQuery(MessageSql.COMPLETE_ALL)
                        .bind("now", Queues.ts(Instant.now()))
                        .bindArray("ids", Long.class, batch.stream().map(Message::id).toArray())
                        .bindArray("attempts", Integer.class, batch.stream().map(Message::attempt).toArray())
                        .mapTo(Long.class).list());
                completed.add(done.size());
                batch.stream().filter(m -> !done.contains(m.id())).forEach(m -> missed.add(m.id() + "@" + m.attempt()));
                held.removeAll(batch);
            });
            // Vacuums change the partition's statistics, and with them the completion's plan: the misses came with the
            // plans chosen after one.
            load.repeat("vacuum", () -> {
                sleep(500);
                jdbi.useHandle(h -> h.execute("VACUUM gantry_queue.message"));
            });
            // At least 10 s, and until the race ran often enough to mean something: a loaded machine gets there later.
            long began = System.nanoTime();
            while (System.nanoTime() - began < 10e9 || (System.nanoTime() - began < 60e9 && load.failure() == null
                    && (heartbeats.sum() <= 1_000 || completed.sum() <= 10_000))) {
                Thread.sleep(100);
            }
            load.close();
            failure = load.failure();
        } finally {
            queues.close();
        }
        assertThat(failure).as("a failure in a racing thread").isNull();
        assertThat(heartbeats.sum()).as("heartbeats").isGreaterThan(1_000);
        assertThat(completed.sum()).as("completions").isGreaterThan(10_000);
        assertThat(missed).as("held messages a completion missed (id@attempt)").isEmpty();
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
