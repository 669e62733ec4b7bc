package dev.gantry.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gantry.testkit.EmbeddedPostgresExtension;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Steady load for a long time: producers enqueue at a fixed rate, workers drain, maintenance runs every second with
 * short epochs, and for a while another session holds an old snapshot open, as a long transaction elsewhere in the
 * database would (with {@code -Dsoak.snapshotReadsQueue=true} it also reads the queue's table first, as a backup
 * would, and so holds a lock on it that maintenance must wait for). The
 * queue must not rot: dead tuples in the hot table's partitions stay bounded and throughput stays flat. Prints its
 * figures every report window and a summary.
 *
 * <p>Not part of the default run (the failsafe configuration excludes {@code *SoakIT}). Run it with
 * <pre>mvn -B -pl gantry-queue verify -Psoak -Dsoak.minutes=30</pre>
 * and, for a short trial, scale the snapshot window down:
 * <pre>
 * mvn -B -pl gantry-queue verify -Psoak -Dsoak.minutes=5 -Dsoak.snapshotFrom=1 -Dsoak.snapshotTo=3 \
 *     -Dsoak.compareMinutes=1
 * </pre>
 * {@link Plan} lists every property and its default.
 */
class QueueSoakIT {
    @RegisterExtension
    static final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension(40);

    private static final String QUEUE = "soak";
    private static final int PRODUCERS = 2;
    private static final int CONCURRENCY = 4;
    /** Each message leaves two dead row versions behind (claim, complete), and up to three epochs are attached. */
    private static final int DEAD_PER_MESSAGE = 2;
    private static final int ATTACHED_EPOCHS = 3;

    /**
     * The soak's parameters, from system properties (durations in minutes or seconds as named).
     *
     * @param minutes         soak.minutes: how long to run (30)
     * @param rate            soak.rate: messages enqueued per second (100)
     * @param workers         soak.workers: workers, each handling 4 messages at a time (4)
     * @param snapshotFrom    soak.snapshotFrom: minute the old snapshot is taken (5)
     * @param snapshotTo      soak.snapshotTo: minute it is released (10)
     * @param epochSeconds    soak.epochSeconds: the queue's epoch length (30)
     * @param retentionSeconds soak.retentionSeconds: the queue's retention (120)
     * @param reportSeconds   soak.reportSeconds: how often to print (30)
     * @param compareMinutes  soak.compareMinutes: the first and last spans whose throughput must agree (5)
     * @param snapshotReadsQueue soak.snapshotReadsQueue: whether the old snapshot also reads the queue's table (false)
     */
    record Plan(double minutes, int rate, int workers, double snapshotFrom, double snapshotTo, int epochSeconds,
                int retentionSeconds, int reportSeconds, double compareMinutes, boolean snapshotReadsQueue) {
        static Plan fromSystemProperties() {
            Plan p = new Plan(number("soak.minutes", 30), (int) number("soak.rate", 100),
                    (int) number("soak.workers", 4), number("soak.snapshotFrom", 5), number("soak.snapshotTo", 10),
                    (int) number("soak.epochSeconds", 30), (int) number("soak.retentionSeconds", 120),
                    (int) number("soak.reportSeconds", 30), number("soak.compareMinutes", 5),
                    Boolean.getBoolean("soak.snapshotReadsQueue"));
            require(p.rate > 0 && p.workers > 0 && p.epochSeconds > 0 && p.retentionSeconds > 0,
                    "soak.rate, soak.workers, soak.epochSeconds and soak.retentionSeconds must be positive");
            require(p.snapshotFrom < p.snapshotTo && p.snapshotTo <= p.minutes,
                    "soak.snapshotFrom must come before soak.snapshotTo, which must not be after soak.minutes");
            require(p.compareMinutes * 2 <= p.minutes, "soak.compareMinutes must be at most half of soak.minutes");
            require(p.reportSeconds > 0 && Math.round(p.compareMinutes * 60) % p.reportSeconds == 0,
                    "soak.compareMinutes must be a whole number of soak.reportSeconds");
            return p;
        }

        long boundOnDeadTuples() {
            return (long) ATTACHED_EPOCHS * epochSeconds * rate * DEAD_PER_MESSAGE;
        }

        private static double number(String property, double otherwise) {
            String text = System.getProperty(property);
            try {
                return text == null || text.isBlank() ? otherwise : Double.parseDouble(text);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(property + " must be a number, got '" + text + "'");
            }
        }

        private static void require(boolean rule, String message) {
            if (!rule) {
                throw new IllegalArgumentException(message);
            }
        }
    }

    /** One report window. */
    private record Window(long elapsed, long completedSoFar, double perSecond, SoakFigures.Tables tables,
                          SoakFigures.Summary claims, int liveEpochs, boolean snapshotHeld) {
    }

    @Test
    void dead_tuples_stay_bounded_and_throughput_stays_flat_under_steady_load_and_an_old_snapshot()
            throws Exception {
        Plan plan = Plan.fromSystemProperties();
        QueueSettings settings = QueueSettings.defaults().withEpochLength(Duration.ofSeconds(plan.epochSeconds()))
                .withRetention(Duration.ofSeconds(plan.retentionSeconds())).withLease(Duration.ofSeconds(30));
        Queues queues = Queues.start(pg.dataSource(), settings);
        SoakFigures.Latencies claimLatency = new SoakFigures.Latencies();
        Queues workerQueues = Queues.start(new ProbedDataSource(pg.dataSource(), sql -> sql.contains("SKIP LOCKED"),
                claimLatency::add), settings);
        System.out.printf("soak: %s%nsoak: bound on dead tuples in the hot partitions = %d epochs x %d s x %d msg/s "
                        + "x %d dead versions per message = %d%n", plan, ATTACHED_EPOCHS, plan.epochSeconds(),
                plan.rate(), DEAD_PER_MESSAGE, plan.boundOnDeadTuples());
        System.out.printf("%8s %7s %7s %6s %5s %8s %8s %8s %8s %8s %8s %8s %7s %s%n", "elapsed", "done/s", "ready",
                "epochs", "parts", "dead_hot", "live_hot", "dead_cat", "xmin_age", "claim50", "claim99", "claimMax",
                "claims", "snapshot");

        LongAdder completed = new LongAdder();
        LongAdder enqueueFailures = new LongAdder();
        AtomicBoolean producing = new AtomicBoolean(true);
        List<Thread> producers = new ArrayList<>();
        List<Worker> workers = new ArrayList<>();
        List<Window> windows = new ArrayList<>();
        AutoCloseable maintenance = Shards.of(List.of(queues)).startMaintenance(Duration.ofSeconds(1));
        Connection snapshot = null;
        long start = System.nanoTime();
        try {
            for (int i = 0; i < plan.workers(); i++) {
                workers.add(Worker.start(workerQueues, QUEUE, m -> completed.increment(),
                        Worker.Options.named("soak-" + i, CONCURRENCY)));
            }
            for (int i = 0; i < PRODUCERS; i++) {
                producers.add(Thread.ofPlatform().name("soak-producer-" + i).start(() ->
                        produce(queues, plan.rate() / (double) PRODUCERS, producing, enqueueFailures)));
            }
            long lastCompleted = 0;
            long end = (long) (plan.minutes() * 60);
            for (long next = plan.reportSeconds(); next <= end; next += plan.reportSeconds()) {
                while (elapsedSeconds(start) < next) {
                    double minute = elapsedSeconds(start) / 60;
                    if (snapshot == null && minute >= plan.snapshotFrom() && minute < plan.snapshotTo()) {
                        snapshot = holdOldSnapshot(plan.snapshotReadsQueue());
                    } else if (snapshot != null && minute >= plan.snapshotTo()) {
                        snapshot.rollback();
                        snapshot.close();
                        snapshot = null;
                    }
                    Thread.sleep(200);
                }
                long done = completed.sum();
                Window w = new Window(next, done, (done - lastCompleted) / (double) plan.reportSeconds(),
                        SoakFigures.read(pg.dataSource()), claimLatency.drain(), queues.liveEpochs().size(),
                        snapshot != null);
                lastCompleted = done;
                windows.add(w);
                print(w);
            }
        } finally {
            producing.set(false);
            for (Thread t : producers) {
                t.join();
            }
            workers.forEach(Worker::close);
            maintenance.close();
            workerQueues.close();
            queues.close();
            if (snapshot != null) {
                snapshot.close();
            }
        }
        summarize(plan, windows, enqueueFailures.sum());
    }

    private static void produce(Queues queues, double perSecond, AtomicBoolean producing, LongAdder failures) {
        long start = System.nanoTime();
        long sent = 0;
        while (producing.get()) {
            long due = (long) (elapsedSeconds(start) * perSecond);
            try {
                if (sent < due) {
                    queues.enqueue(NewMessage.to(QUEUE).payload("{\"n\":" + sent + "}"));
                    sent++;
                } else {
                    Thread.sleep(2);
                }
            } catch (QueueException e) {
                failures.increment();
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** A REPEATABLE READ transaction with an xid: vacuum cannot pass it. Reading the queue also locks its table. */
    private static Connection holdOldSnapshot(boolean readsQueue) throws SQLException {
        Connection c = DriverManager.getConnection(pg.url().jdbcUrl(), pg.url().user().orElseThrow(), "");
        c.setAutoCommit(false);
        c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
        try (Statement s = c.createStatement()) {
            s.executeQuery("SELECT txid_current()").close();
            if (readsQueue) {
                s.executeQuery("SELECT count(*) FROM gantry_queue.message").close();
            }
        }
        return c;
    }

    private static void print(Window w) {
        SoakFigures.Tables t = w.tables();
        System.out.printf("%7ds %7.1f %7d %6d %5d %8d %8d %8d %8d %8.2f %8.2f %8.2f %7d %s%n", w.elapsed(),
                w.perSecond(), t.ready(), w.liveEpochs(), t.hotPartitions(), t.deadHot(), t.liveHot(),
                t.deadCatalog(), t.oldestXminAge(), w.claims().p50(), w.claims().p99(), w.claims().max(),
                w.claims().count(), w.snapshotHeld() ? "held" : "");
    }

    private static void summarize(Plan plan, List<Window> windows, long enqueueFailures) {
        int span = (int) Math.round(plan.compareMinutes() * 60 / plan.reportSeconds());
        double first = throughput(windows.subList(0, span));
        double last = throughput(windows.subList(windows.size() - span, windows.size()));
        long maxDead = windows.stream().mapToLong(w -> w.tables().deadHot()).max().orElse(0);
        long maxDeadHeld = windows.stream().filter(Window::snapshotHeld).mapToLong(w -> w.tables().deadHot())
                .max().orElse(0);
        long maxXminAge = windows.stream().mapToLong(w -> w.tables().oldestXminAge()).max().orElse(0);
        int maxEpochs = windows.stream().mapToInt(Window::liveEpochs).max().orElse(0);
        System.out.printf("""
                        soak summary: %.1f min at %d msg/s, %d workers x %d, epoch %d s, retention %d s, \
                        old snapshot from minute %.1f to %.1f
                          dead tuples in hot partitions: max %d (max %d while the snapshot was held), bound %d
                          live epochs: max %d; oldest xmin age: max %d; enqueue failures: %d
                          throughput: first %.1f min %.1f/s, last %.1f min %.1f/s, last/first %.3f
                          claim latency p99: first window %.2f ms, last window %.2f ms
                        """, plan.minutes(), plan.rate(), plan.workers(), CONCURRENCY, plan.epochSeconds(),
                plan.retentionSeconds(), plan.snapshotFrom(), plan.snapshotTo(), maxDead, maxDeadHeld,
                plan.boundOnDeadTuples(), maxEpochs, maxXminAge, enqueueFailures, plan.compareMinutes(), first,
                plan.compareMinutes(), last, last / first, windows.get(0).claims().p99(),
                windows.get(windows.size() - 1).claims().p99());
        assertThat(maxDead).as("dead tuples in the hot partitions").isLessThan(plan.boundOnDeadTuples());
        assertThat(last / first).as("last/first throughput").isBetween(0.8, 1.2);
    }

    private static double throughput(List<Window> span) {
        return span.stream().mapToDouble(Window::perSecond).sum() / span.size();
    }

    private static double elapsedSeconds(long start) {
        return (System.nanoTime() - start) / 1e9;
    }
}
