package dev.gantry.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The queue through the database faults of the October 9 incident: a database that turns read-only, one that goes
 * away and comes back in the middle of a run, and one that hangs (stopped with SIGSTOP, so connections open but
 * nothing answers). Enqueues fail fast with {@link QueueUnavailableException}, workers
 * back off instead of spinning and resume by themselves, and no message is lost, completed twice, or held by two
 * workers at once.
 */
class FaultsIT {
    @RegisterExtension
    static final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension();

    private static final Duration LEASE = Duration.ofSeconds(3);
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(2);

    private HikariDataSource pool;
    private Queues queues;

    @BeforeEach
    void start() {
        pool = TestPools.failingFast(pg.url(), "faults", 16);
        // The pool gives up a borrow after 0.5 s, which the migration can take to get its connections on a loaded
        // machine, just after the last test restarted the server: the faults under test come after the start.
        queues = await().atMost(Duration.ofSeconds(30)).ignoreException(QueueUnavailableException.class)
                .until(() -> Queues.start(pool, settings()), started -> true);
        CompletionAudit.install(pool);
        pg.truncate("gantry_queue.message", "gantry_queue.queue", "public.completion_audit");
    }

    @AfterEach
    void stop() throws Exception {
        pg.startServer();
        setReadOnly(false);
        queues.close();
        pool.close();
    }

    private static QueueSettings settings() {
        return QueueSettings.defaults().withLease(LEASE).withRetry(Duration.ofMillis(50), Duration.ofMillis(200));
    }

    private static Worker.Options options(String name, int concurrency) {
        return Worker.Options.named(name, concurrency).withMaxBackoff(MAX_BACKOFF);
    }

    @Test
    void a_read_only_database_refuses_enqueues_at_once_and_workers_back_off_until_it_is_writable_again()
            throws Exception {
        ProbedDataSource probed = new ProbedDataSource(pool, sql -> sql.contains("SKIP LOCKED"), nanos -> { });
        Queues workerQueues = Queues.start(probed, settings());
        List<Long> before = enqueue(50, null);
        // Due while the database is read-only: the worker must pick them up by itself once it is writable.
        List<Long> due = enqueue(100, Instant.now().plusSeconds(2));
        try (Worker w = Worker.start(workerQueues, "jobs", m -> Thread.sleep(2), options("w", 2))) {
            await().atMost(Duration.ofSeconds(10)).until(() -> allDone(before));
            setReadOnly(true);

            for (int i = 0; i < 5; i++) {
                long start = System.nanoTime();
                QueueUnavailableException refused = catchThrowableOfType(QueueUnavailableException.class,
                        () -> queues.enqueue(NewMessage.to("jobs")));
                long millis = (System.nanoTime() - start) / 1_000_000;
                assertThat(refused).as("enqueue into a read-only database").isNotNull();
                assertThat(refused.retryAfter()).isPositive();
                assertThat(millis).as("time to refuse, ms").isLessThan(1_000);
            }

            Thread.sleep(1_000); // the worker notices and starts backing off
            long claimsBefore = probed.statements();
            Thread.sleep(4_000);
            long claims = probed.statements() - claimsBefore;
            System.out.printf("read-only: %d claim attempts in 4 s (a healthy idle worker looks every 100-200 ms)%n",
                    claims);
            assertThat(claims).as("claim attempts in 4 s while read-only").isBetween(1L, 16L);

            long writable = System.nanoTime();
            setReadOnly(false);
            await().atMost(MAX_BACKOFF.plusSeconds(5)).until(() -> allDone(due));
            System.out.printf("read-only: the backlog of %d was done %d ms after the database became writable%n",
                    due.size(), (System.nanoTime() - writable) / 1_000_000);
            await().atMost(Duration.ofSeconds(5)).until(() -> w.inFlight() == 0);
        } finally {
            workerQueues.close();
        }
        assertCompletedOnce(before, due);
    }

    @Test
    void stopping_and_restarting_the_database_mid_run_loses_nothing_and_completes_nothing_twice() throws Exception {
        List<Long> ids = enqueue(1_000, null);
        survivesOutage("restart", ids, 3, 250, 2_000, new Outage() {
            @Override
            public void begin() {
                pg.stopServer();
            }

            @Override
            public void end() throws InterruptedException {
                Thread.sleep(2_000);
                pg.startServer();
            }
        });
        assertThat(CompletionAudit.messages(pool)).as("messages in the database").isEqualTo(ids.size());
    }

    @Test
    void a_hung_server_fails_enqueues_within_the_timeouts_and_the_queue_resumes_when_it_answers_again()
            throws Exception {
        // A borrowed connection waits for the socket timeout; a new one for the login timeout; the pool gives up on
        // a borrow after its own timeout. Never longer than the longest of them, plus slack.
        long bound = TestPools.SOCKET_TIMEOUT.plus(TestPools.BORROW_TIMEOUT).toMillis() + 1_500;
        survivesOutage("hung server", enqueue(300, null), 2, 60, bound, new Outage() {
            @Override
            public void begin() {
                pg.freezeServer();
            }

            @Override
            public void end() {
                pg.thawServer();
            }
        });
    }

    /** A database fault that starts and ends in the middle of a run. */
    private interface Outage {
        void begin() throws Exception;

        void end() throws Exception;
    }

    /**
     * Runs {@code workers} workers (3 handlers each, 20 ms per message) with maintenance over {@code ids}; once
     * {@code handledFirst} are handled, the outage begins and three enqueues must each be refused with
     * {@link QueueUnavailableException} within {@code refusedWithinMs}; then it ends, and every message must be
     * handled and completed exactly once, never two deliveries of one at once.
     */
    private void survivesOutage(String what, List<Long> ids, int workers, int handledFirst, long refusedWithinMs,
                                Outage outage) throws Exception {
        Set<Long> active = ConcurrentHashMap.newKeySet();
        Map<Long, Integer> handled = new ConcurrentHashMap<>();
        AtomicInteger overlaps = new AtomicInteger();
        Worker.Handler handler = m -> {
            if (!active.add(m.id())) {
                overlaps.incrementAndGet();
            }
            try {
                Thread.sleep(20);
                handled.merge(m.id(), 1, Integer::sum);
            } finally {
                active.remove(m.id());
            }
        };
        List<Worker> running = new ArrayList<>();
        AutoCloseable maintenance = Shards.of(List.of(queues)).startMaintenance(Duration.ofMillis(500));
        try {
            for (int w = 1; w <= workers; w++) {
                running.add(Worker.start(queues, "jobs", handler, options("w" + w, 3)));
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> handled.size() >= handledFirst);
            outage.begin();
            int doneBefore = handled.size();
            try {
                for (int i = 0; i < 3; i++) {
                    long start = System.nanoTime();
                    QueueUnavailableException refused = catchThrowableOfType(QueueUnavailableException.class,
                            () -> queues.enqueue(NewMessage.to("jobs")));
                    long millis = (System.nanoTime() - start) / 1_000_000;
                    System.out.printf("%s: enqueue refused after %d ms%n", what, millis);
                    assertThat(refused).as("enqueue during the outage").isNotNull();
                    assertThat(millis).as("time to refuse, ms").isLessThan(refusedWithinMs);
                }
            } finally {
                outage.end();
            }
            long back = System.nanoTime();
            await().atMost(Duration.ofSeconds(40)).pollInterval(Duration.ofMillis(250)).ignoreExceptions()
                    .until(() -> allDone(ids));
            System.out.printf("%s: %d handled before the outage; all %d done %d ms after it ended; %d redelivered%n",
                    what, doneBefore, ids.size(), (System.nanoTime() - back) / 1_000_000,
                    handled.values().stream().filter(n -> n > 1).count());
        } finally {
            running.forEach(Worker::close);
            maintenance.close();
        }
        assertThat(overlaps).as("deliveries of one message at once").hasValue(0);
        assertThat(handled.keySet()).containsExactlyInAnyOrderElementsOf(ids);
        assertCompletedOnce(ids);
    }

    @SafeVarargs
    private void assertCompletedOnce(List<Long>... batches) {
        Map<Long, Integer> completions = CompletionAudit.completions(pool);
        for (List<Long> ids : batches) {
            for (long id : ids) {
                assertThat(completions.get(id)).as("committed completions of message %d", id).isEqualTo(1);
            }
        }
    }

    private boolean allDone(List<Long> ids) {
        return ids.stream().allMatch(id -> queues.state(id).orElseThrow() == MessageState.DONE);
    }

    private List<Long> enqueue(int n, Instant runAt) {
        return Jdbi.create(pool).inTransaction(h -> {
            List<NewMessage> batch = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                batch.add(NewMessage.to("jobs").payload(Integer.toString(i)).runAt(runAt));
            }
            return queues.enqueueAll(h, batch).stream().map(Enqueued::id).toList();
        });
    }

    /**
     * Turns the whole server read-only, or back, the way a primary that stopped taking writes looks to clients:
     * {@code ALTER SYSTEM} and a reload reach every session, pooled ones included, at its next statement
     * ({@code ALTER DATABASE ... SET} would reach only new sessions).
     */
    private void setReadOnly(boolean on) throws SQLException, InterruptedException {
        try (Connection c = DriverManager.getConnection(pg.url().jdbcUrl(), pg.url().user().orElseThrow(), "");
             Statement s = c.createStatement()) {
            s.execute(on ? "ALTER SYSTEM SET default_transaction_read_only = on"
                    : "ALTER SYSTEM RESET default_transaction_read_only");
            s.execute("SELECT pg_reload_conf()");
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> readOnly() == on);
        Thread.sleep(200); // every backend has had the signal by now, not only the one that answered
    }

    private boolean readOnly() throws SQLException {
        try (Connection c = pool.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SHOW default_transaction_read_only")) {
            rs.next();
            return rs.getString(1).equals("on");
        }
    }
}
