package dev.gantry.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.gantry.testkit.EmbeddedPostgresExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Workers on real time and a real embedded PostgreSQL, including a database restart in the middle of a run. */
class WorkerIT {
    @RegisterExtension
    static final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension();

    private Queues queues;

    @AfterEach
    void stop() {
        queues.close();
    }

    @BeforeEach
    void start() {
        queues = Queues.start(pg.dataSource(), QueueSettings.defaults().withLease(Duration.ofSeconds(5))
                .withRetry(Duration.ofMillis(50), Duration.ofMillis(200)));
        pg.truncate("gantry_queue.message", "gantry_queue.queue");
    }

    private List<Long> enqueue(String queue, int n) {
        return Jdbi.create(pg.dataSource()).inTransaction(h -> {
            List<NewMessage> batch = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                batch.add(NewMessage.to(queue).payload(Integer.toString(i)));
            }
            return queues.enqueueAll(h, batch).stream().map(Enqueued::id).toList();
        });
    }

    @Test
    void every_message_is_handled_and_completed_with_retries_for_failures() {
        List<Long> ids = enqueue("work", 200);
        Set<Long> active = ConcurrentHashMap.newKeySet();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger calls = new AtomicInteger();
        try (Worker w = Worker.start(queues, "work", m -> {
            if (!active.add(m.id())) {
                overlaps.incrementAndGet();
            }
            try {
                calls.incrementAndGet();
                if (m.attempt() == 1 && m.id() % 10 == 0) {
                    throw new IllegalStateException("transient");
                }
            } finally {
                active.remove(m.id());
            }
        }, Worker.Options.named("w", 4))) {
            await().atMost(Duration.ofSeconds(30)).until(() -> ids.stream()
                    .allMatch(id -> queues.state(id).orElseThrow() == MessageState.DONE));
            await().atMost(Duration.ofSeconds(5)).until(() -> w.inFlight() == 0);
        }
        assertThat(overlaps).hasValue(0);
        assertThat(calls.get()).isEqualTo(200 + 20);
    }

    @Test
    void a_fatal_failure_is_dead_lettered_without_retries() {
        long id = enqueue("fatal", 1).get(0);
        AtomicInteger calls = new AtomicInteger();
        try (Worker w = Worker.start(queues, "fatal", m -> {
            calls.incrementAndGet();
            throw new Worker.FatalFailure("config is invalid");
        }, Worker.Options.named("w", 1))) {
            await().atMost(Duration.ofSeconds(10)).until(() -> queues.state(id).orElseThrow() == MessageState.DEAD);
            await().atMost(Duration.ofSeconds(5)).until(() -> w.inFlight() == 0);
        }
        assertThat(calls).hasValue(1);
    }

    @Test
    void work_resumes_by_itself_after_the_database_restarts_and_nothing_is_lost() {
        List<Long> ids = enqueue("restart", 300);
        Set<Long> active = ConcurrentHashMap.newKeySet();
        AtomicInteger overlaps = new AtomicInteger();
        try (Worker w = Worker.start(queues, "restart", m -> {
            if (!active.add(m.id())) {
                overlaps.incrementAndGet();
            }
            try {
                Thread.sleep(5);
            } finally {
                active.remove(m.id());
            }
        }, Worker.Options.named("w", 4))) {
            await().atMost(Duration.ofSeconds(20)).until(() -> w.inFlight() > 0);
            pg.restartServer();
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).ignoreExceptions().until(() -> {
                queues.rescueExpired(1_000); // leases whose outcome was lost in the restart come back
                return ids.stream().allMatch(id -> queues.state(id).orElseThrow() == MessageState.DONE);
            });
        }
        assertThat(overlaps).as("no two deliveries of one message at once").hasValue(0);
    }

    @Test
    void a_delivery_whose_lease_was_lost_is_interrupted_at_its_next_heartbeat() throws Exception {
        dev.gantry.testkit.ManualClock clock = new dev.gantry.testkit.ManualClock();
        try (Queues timed = Queues.start(pg.dataSource(), QueueSettings.defaults().withClock(clock)
                .withLease(Duration.ofSeconds(3)))) {
            long id = timed.enqueue(NewMessage.to("lost")).id();
            AtomicInteger interrupted = new AtomicInteger();
            java.util.concurrent.atomic.AtomicLong interruptedAt = new java.util.concurrent.atomic.AtomicLong();
            java.util.concurrent.CountDownLatch firstStarted = new java.util.concurrent.CountDownLatch(1);
            long rescuedAt;
            try (Worker w = Worker.start(timed, "lost", m -> {
                try {
                    if (m.attempt() == 1) {
                        firstStarted.countDown();
                        Thread.sleep(30_000); // stuck, until interrupted
                    }
                } catch (InterruptedException e) {
                    interruptedAt.set(System.nanoTime());
                    interrupted.incrementAndGet();
                    throw e;
                }
            }, Worker.Options.named("w", 2))) {
                firstStarted.await();
                clock.advance(Duration.ofSeconds(4));
                assertThat(timed.rescueExpired(10)).isEqualTo(1);
                rescuedAt = System.nanoTime();
                await().atMost(Duration.ofSeconds(10)).until(() -> timed.state(id).orElseThrow() == MessageState.DONE);
                await().atMost(Duration.ofSeconds(5)).until(() -> w.inFlight() == 0);
            }
            // The stale delivery runs beside the redelivery only until its next heartbeat (every lease / 3 = 1 s).
            assertThat(interrupted).hasValue(1);
            assertThat(Duration.ofNanos(interruptedAt.get() - rescuedAt)).isLessThan(Duration.ofSeconds(3));
        }
    }

    @Test
    void a_delivery_stops_when_its_lease_runs_out_while_the_database_is_away() throws Exception {
        long id = enqueue("away", 1).get(0);
        java.util.concurrent.CountDownLatch firstStarted = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicLong interruptedAt = new java.util.concurrent.atomic.AtomicLong();
        AtomicInteger runs = new AtomicInteger();
        try (Worker w = Worker.start(queues, "away", m -> {
            runs.incrementAndGet();
            if (m.attempt() == 1) {
                firstStarted.countDown();
                try {
                    Thread.sleep(60_000); // stuck, until interrupted
                } catch (InterruptedException e) {
                    interruptedAt.set(System.nanoTime());
                    throw e;
                }
            }
        }, Worker.Options.named("w", 1))) {
            firstStarted.await();
            long stoppedAt = System.nanoTime();
            pg.stopServer();
            try {
                // No heartbeat can renew the 5-s lease now. Once it has run out, the sweeper may hand the message to
                // another worker the moment the database is back: the stale delivery must have stopped before that.
                await().atMost(Duration.ofSeconds(10)).until(() -> interruptedAt.get() != 0);
                assertThat(Duration.ofNanos(interruptedAt.get() - stoppedAt)).as("within the lease, plus a check")
                        .isLessThan(Duration.ofSeconds(5).plus(Worker.EXPIRY_CHECK).plusSeconds(1));
            } finally {
                pg.startServer();
            }
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).ignoreExceptions().until(() -> {
                queues.rescueExpired(10);
                return queues.state(id).orElseThrow() == MessageState.DONE;
            });
        }
        assertThat(runs).as("the stale delivery, then the redelivery").hasValue(2);
    }

    @Test
    void closing_while_the_database_is_away_gives_up_the_unrecorded_completions_and_stops() throws Exception {
        long id = enqueue("closing", 1).get(0);
        java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        Worker w = Worker.start(queues, "closing", m -> {
            started.countDown();
            release.await();
        }, Worker.Options.named("w", 1).withCloseWait(Duration.ofSeconds(2)));
        started.await();
        pg.stopServer();
        try {
            release.countDown(); // handled, but its completion cannot be recorded now
            long closing = System.nanoTime();
            w.close();
            assertThat(Duration.ofNanos(System.nanoTime() - closing)).as("close() gave up waiting")
                    .isLessThan(Duration.ofSeconds(10));
            assertThat(w.inFlight()).isZero();
            assertThat(threadsNamed("queue-closing-completer")).as("the completer stopped").isZero();
            // The heartbeat and expiry threads end at their next look, with nothing in flight.
            await().atMost(Duration.ofSeconds(5)).until(() -> threadsNamed("queue-closing-") == 0);
        } finally {
            pg.startServer();
        }
        // The completion was given up: the message runs again once its lease has run out.
        AtomicInteger runs = new AtomicInteger();
        try (Worker again = Worker.start(queues, "closing", m -> runs.incrementAndGet(),
                Worker.Options.named("w", 1))) {
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).ignoreExceptions().until(() -> {
                queues.rescueExpired(10);
                return queues.state(id).orElseThrow() == MessageState.DONE;
            });
        }
        assertThat(runs).hasValue(1);
    }

    @Test
    void closing_with_a_handler_that_ignores_interrupts_stops_renewing_its_lease() throws Exception {
        long id = enqueue("stuck", 1).get(0);
        java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicBoolean release = new java.util.concurrent.atomic.AtomicBoolean();
        List<Integer> attempts = new java.util.concurrent.CopyOnWriteArrayList<>();
        Worker w = Worker.start(queues, "stuck", m -> {
            attempts.add(m.attempt());
            started.countDown();
            while (m.attempt() == 1 && !release.get()) {
                try {
                    Thread.sleep(50);
                } catch (InterruptedException ignored) {
                    // a handler that will not stop
                }
            }
        }, Worker.Options.named("w", 1).withCloseWait(Duration.ofSeconds(1)));
        try {
            started.await();
            w.close();
            assertThat(w.inFlight()).as("the stuck delivery").isOne();
            // Its lease (5 s) is no longer renewed: the sweeper puts it back and another worker runs it.
            try (Worker again = Worker.start(queues, "stuck", m -> attempts.add(m.attempt()),
                    Worker.Options.named("w2", 1))) {
                await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200)).until(() -> {
                    queues.rescueExpired(10);
                    return queues.state(id).orElseThrow() == MessageState.DONE;
                });
            }
            assertThat(attempts).containsExactly(1, 2);
            await().atMost(Duration.ofSeconds(5)).until(() -> threadsNamed("queue-stuck-heartbeat") == 0);
        } finally {
            release.set(true);
        }
    }

    private static long threadsNamed(String prefix) {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith(prefix)).count();
    }

    @Test
    void heartbeats_write_only_leases_a_third_used_and_keep_a_long_delivery_from_being_rescued() throws Exception {
        dev.gantry.testkit.ManualClock clock = new dev.gantry.testkit.ManualClock();
        try (Queues timed = Queues.start(pg.dataSource(), QueueSettings.defaults().withClock(clock)
                .withLease(Duration.ofSeconds(3)))) {
            long id = timed.enqueue(NewMessage.to("long")).id();
            java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
            java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
            AtomicInteger runs = new AtomicInteger();
            Jdbi jdbi = Jdbi.create(pg.dataSource());
            java.util.function.Supplier<String> rowVersion = () -> jdbi.withHandle(h -> h.createQuery(
                    "SELECT CAST(xmin AS text) FROM gantry_queue.message WHERE id = :id").bind("id", id)
                    .mapTo(String.class).one());
            try (Worker w = Worker.start(timed, "long", m -> {
                runs.incrementAndGet();
                started.countDown();
                release.await();
            }, Worker.Options.named("w", 1))) {
                started.await();
                try {
                    String claimed = rowVersion.get();
                    Thread.sleep(2_500); // two heartbeat passes (every lease / 3 = 1 s) on a lease not used yet
                    assertThat(rowVersion.get()).as("a fresh lease is not written again").isEqualTo(claimed);

                    clock.advance(Duration.ofMillis(1_500)); // half the lease used: the next pass renews it
                    await().atMost(Duration.ofSeconds(3)).until(() -> !rowVersion.get().equals(claimed));
                    clock.advance(Duration.ofMillis(2_500)); // past the claim's lease, within the renewed one
                    assertThat(timed.rescueExpired(10)).isZero();
                } finally {
                    release.countDown();
                }
                await().atMost(Duration.ofSeconds(5)).until(() -> timed.state(id).orElseThrow() == MessageState.DONE);
            }
            assertThat(runs).hasValue(1);
        }
    }

    @Test
    void a_prefetched_message_whose_lease_was_lost_is_withdrawn_and_its_slot_reused() throws Exception {
        try (Queues timed = Queues.start(pg.dataSource(), QueueSettings.defaults().withLease(Duration.ofSeconds(3)))) {
            List<Long> ids = enqueue("prefetch", 2);
            java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
            java.util.Map<Long, List<Integer>> deliveries = new ConcurrentHashMap<>();
            // One handler, one message prefetched: the first delivery blocks, the second waits behind it.
            try (Worker w = Worker.start(timed, "prefetch", m -> {
                deliveries.computeIfAbsent(m.id(), k -> new java.util.concurrent.CopyOnWriteArrayList<>())
                        .add(m.attempt());
                if (m.id() == ids.get(0)) {
                    release.await();
                }
            }, Worker.Options.named("w", 1).withPrefetch(1))) {
                await().atMost(Duration.ofSeconds(10)).until(() -> w.inFlight() == 2);
                // The waiting message's lease runs out (say its worker was paused) and the sweeper puts it back.
                Jdbi.create(pg.dataSource()).useHandle(h -> h.createUpdate(
                        "UPDATE gantry_queue.message SET lease_until = now() - interval '1 second' WHERE id = :id")
                        .bind("id", ids.get(1)).execute());
                assertThat(timed.rescueExpired(10)).isEqualTo(1);
                // At its next heartbeat the worker withdraws the stale delivery and frees its slot, so it claims the
                // message again (attempt 2) while the first handler is still blocked.
                await().atMost(Duration.ofSeconds(10)).until(() -> timed.state(ids.get(1)).orElseThrow()
                        == MessageState.RUNNING && w.inFlight() == 2 && attemptOf(ids.get(1)) == 2);
                release.countDown();
                await().atMost(Duration.ofSeconds(10)).until(() -> ids.stream()
                        .allMatch(id -> timed.state(id).orElseThrow() == MessageState.DONE));
                await().atMost(Duration.ofSeconds(5)).until(() -> w.inFlight() == 0);
            }
            assertThat(deliveries.get(ids.get(0))).containsExactly(1);
            assertThat(deliveries.get(ids.get(1))).as("the withdrawn delivery never ran").containsExactly(2);
        }
    }

    @Test
    void under_a_concurrency_limit_a_finished_message_wakes_the_worker_for_the_next() {
        queues.limit("capped", new QueueLimits(2, null));
        List<Long> ids = enqueue("capped", 12);
        AtomicInteger running = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        // A poll far longer than the test: only wake-ups can move the worker on once the limit cuts a claim short.
        try (Worker w = Worker.start(queues, "capped", m -> {
            most.accumulateAndGet(running.incrementAndGet(), Math::max);
            try {
                Thread.sleep(20);
            } finally {
                running.decrementAndGet();
            }
        }, Worker.Options.named("w", 4).withIdlePoll(Duration.ofSeconds(60)))) {
            await().atMost(Duration.ofSeconds(20)).until(() -> ids.stream()
                    .allMatch(id -> queues.state(id).orElseThrow() == MessageState.DONE));
        }
        assertThat(most.get()).isLessThanOrEqualTo(2);
    }

    private int attemptOf(long id) {
        return Jdbi.create(pg.dataSource()).withHandle(h -> h.createQuery(
                "SELECT attempt FROM gantry_queue.message WHERE id = :id").bind("id", id).mapTo(Integer.class).one());
    }
}
