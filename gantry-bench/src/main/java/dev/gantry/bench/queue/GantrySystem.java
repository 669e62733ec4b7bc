package dev.gantry.bench.queue;

import dev.gantry.queue.NewMessage;
import dev.gantry.queue.QueueSettings;
import dev.gantry.queue.QueueUnavailableException;
import dev.gantry.queue.Queues;
import dev.gantry.queue.Worker;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * gantry-queue: producers enqueue through one {@link Queues} instance, a {@link Worker} with W concurrency consumes
 * through another, as an API server and a worker process would (so a wake-up crosses the database as a NOTIFY, not
 * a method call). Maintenance runs every {@link #MAINTAIN_EVERY} with epochs of {@link #EPOCH_LENGTH} and a retention
 * of {@link #RETENTION}, so that epochs are sealed and dropped within a run, as they would be over hours in
 * production; {@code -Dbench.queue.epochSeconds=60} runs the default's one-minute epochs instead, to see what the
 * turns cost.
 */
final class GantrySystem implements QueueSystem {
    private static final Logger log = LoggerFactory.getLogger(GantrySystem.class);
    private static final int ENQUEUE_ATTEMPTS = 3;
    static final String QUEUE = "bench";
    static final Duration EPOCH_LENGTH = Duration.ofSeconds(Integer.getInteger("bench.queue.epochSeconds", 5));
    static final Duration RETENTION = Duration.ofSeconds(30);
    static final Duration MAINTAIN_EVERY = Duration.ofSeconds(1);

    private DataSource dataSource;
    private QueueBenchConfig config;
    private Jdbi jdbi;
    private Queues producerSide;
    private Queues workerSide;
    private ScheduledExecutorService maintenance;
    private Worker worker;

    @Override
    public String name() {
        return "gantry-queue";
    }

    @Override
    public String describe(QueueBenchConfig config) {
        return String.format("gantry-queue: Worker concurrency %d, prefetch %d, idle poll %d ms (jittered) plus NOTIFY "
                        + "wake-ups; epoch %ds, retention %ds, maintain() every %ds; producers on a second Queues instance",
                config.workers(), prefetch(config), Worker.Options.DEFAULT_IDLE_POLL.toMillis(), EPOCH_LENGTH.toSeconds(),
                RETENTION.toSeconds(), MAINTAIN_EVERY.toSeconds());
    }

    /** The worker's default prefetch, or {@code -Dbench.queue.prefetch=N} to see what the prefetch limits. */
    private static int prefetch(QueueBenchConfig config) {
        return Integer.getInteger("bench.queue.prefetch",
                Worker.Options.DEFAULT_PREFETCH_PER_HANDLER * config.workers());
    }

    @Override
    public void setup(DataSource dataSource, QueueBenchConfig config) {
        this.dataSource = dataSource;
        this.config = config;
        QueueSettings settings = QueueSettings.defaults().withEpochLength(EPOCH_LENGTH).withRetention(RETENTION);
        // Meters of their own: on the global registry the second instance's gauges (and every later system's)
        // would be refused with a warning, and the first ones would keep the closed instances alive.
        workerSide = Queues.start(dataSource, settings, new SimpleMeterRegistry());
        producerSide = Queues.start(dataSource, settings, new SimpleMeterRegistry());
        jdbi = Jdbi.create(dataSource);
        maintenance = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().name("bench-maintain").daemon()
                .factory());
        maintenance.scheduleWithFixedDelay(this::maintain, 0, MAINTAIN_EVERY.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void maintain() {
        try {
            workerSide.maintain();
        } catch (RuntimeException e) {
            log.warn("gantry-queue maintenance failed; trying again next turn", e); // a throw would end the schedule
        }
    }

    /**
     * One producer transaction. A refusal as unavailable (an epoch switch its insert half saw, rarely) is retried after
     * the wait it names, as an API client would; the messages keep their first enqueue time, so the wait is counted.
     */
    @Override
    public void enqueue(List<Long> enqueuedNanos) throws InterruptedException {
        List<NewMessage> batch = new ArrayList<>(enqueuedNanos.size());
        for (Long nanos : enqueuedNanos) {
            batch.add(NewMessage.to(QUEUE).payload(Long.toString(nanos)));
        }
        for (int attempt = 1; ; attempt++) {
            try {
                jdbi.useTransaction(h -> producerSide.enqueueAll(h, batch));
                return;
            } catch (QueueUnavailableException e) {
                if (attempt == ENQUEUE_ATTEMPTS) {
                    throw e;
                }
                log.warn("gantry-queue refused {} enqueues; retrying in {} ms: {}", batch.size(),
                        e.retryAfter().toMillis(), e.getMessage());
                Thread.sleep(e.retryAfter());
            }
        }
    }

    @Override
    public void start(StartProbe probe) {
        worker = Worker.start(workerSide, QUEUE, m -> probe.started(Long.parseLong(m.payload())),
                Worker.Options.named("bench", config.workers()).withPrefetch(prefetch(config)));
    }

    @Override
    public long pending() throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM gantry_queue.message WHERE state IN (0, 1)")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Override
    public List<String> schemas() {
        return List.of("gantry_queue");
    }

    @Override
    public void close() {
        if (worker != null) {
            worker.close();
            worker = null;
        }
        if (maintenance != null) {
            maintenance.shutdown(); // a turn under way finishes: interrupting it mid-seal proves nothing
            try {
                maintenance.awaitTermination(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            maintenance = null;
        }
        for (Queues queues : new Queues[] {producerSide, workerSide}) {
            if (queues != null) {
                queues.close();
            }
        }
        producerSide = null;
        workerSide = null;
    }
}
