package dev.gantry.bench.queue;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.SchedulerClient;
import com.github.kagkarlsson.scheduler.SchedulerName;
import com.github.kagkarlsson.scheduler.task.TaskInstance;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/**
 * db-scheduler with one one-time task, in the mode its README recommends for throughput ("keep threads busy"):
 * {@code threads(W).pollUsingLockAndFetch(1.0, 4.0)}, i.e. {@code SELECT … FOR UPDATE SKIP LOCKED} that marks up to
 * 4 × W executions picked in one statement and fetches again when W or fewer are left, and the polling interval
 * set as short as gantry-queue's idle wait ({@link QueueBenchConfig#dbSchedulerPoll()}). Producers use a separate
 * {@link SchedulerClient} and {@code scheduleBatch}, so {@code enableImmediateExecution} (an in-process shortcut)
 * does not apply. The enqueue time travels in the instance id ({@code seq-nanos}), as the README suggests for small
 * data; a completed one-time execution is deleted, as db-scheduler does by default.
 */
final class DbSchedulerSystem implements QueueSystem {
    static final String TASK = "bench";
    static final String SCHEMA = "bench/queue/db-scheduler-postgresql.sql";
    static final double LOWER_LIMIT_FRACTION_OF_THREADS = 1.0;
    static final double UPPER_LIMIT_FRACTION_OF_THREADS = 4.0;

    private final AtomicLong sequence = new AtomicLong();
    private volatile StartProbe probe;
    private DataSource dataSource;
    private QueueBenchConfig config;
    private OneTimeTask<Void> task;
    private SchedulerClient client;
    private Scheduler scheduler;

    @Override
    public String name() {
        return "db-scheduler";
    }

    @Override
    public String describe(QueueBenchConfig config) {
        return String.format("db-scheduler: threads(%d), pollUsingLockAndFetch(%.1f, %.1f), pollingInterval %d ms; "
                        + "producers use SchedulerClient.scheduleBatch", config.workers(),
                LOWER_LIMIT_FRACTION_OF_THREADS, UPPER_LIMIT_FRACTION_OF_THREADS,
                config.dbSchedulerPoll().toMillis());
    }

    @Override
    public void setup(DataSource dataSource, QueueBenchConfig config) throws SQLException, IOException {
        this.dataSource = dataSource;
        this.config = config;
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute(resource(SCHEMA));
        }
        task = Tasks.oneTime(TASK).execute((instance, context) -> probe.started(enqueuedNanos(instance.getId())));
        client = SchedulerClient.Builder.create(dataSource, task).build();
    }

    @Override
    public void enqueue(List<Long> enqueuedNanos) {
        List<TaskInstance<?>> batch = new ArrayList<>(enqueuedNanos.size());
        for (Long nanos : enqueuedNanos) {
            batch.add(task.instance(sequence.incrementAndGet() + "-" + nanos));
        }
        client.scheduleBatch(batch, Instant.now());
    }

    static long enqueuedNanos(String instanceId) {
        return Long.parseLong(instanceId.substring(instanceId.indexOf('-') + 1));
    }

    @Override
    public void start(StartProbe probe) {
        this.probe = probe;
        scheduler = Scheduler.create(dataSource, task)
                .threads(config.workers())
                .pollingInterval(config.dbSchedulerPoll())
                .pollUsingLockAndFetch(LOWER_LIMIT_FRACTION_OF_THREADS, UPPER_LIMIT_FRACTION_OF_THREADS)
                .schedulerName(new SchedulerName.Fixed("bench"))
                .shutdownMaxWait(Duration.ofSeconds(30))
                .build();
        scheduler.start();
    }

    @Override
    public long pending() throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM scheduled_tasks")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Override
    public List<String> schemas() {
        return List.of("public");
    }

    @Override
    public void close() {
        if (scheduler != null) {
            scheduler.stop();
            scheduler = null;
        }
    }

    private static String resource(String name) throws IOException {
        try (InputStream in = DbSchedulerSystem.class.getClassLoader().getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException(name + " is not on the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
