package dev.gantry.queue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Calls {@link Queues#maintain()} on each of some queues at a fixed delay, each on its own thread: one database that
 * hangs must not hold up another's rescues and epoch turnover. An unavailable database is logged when it goes and
 * when it comes back, not on every turn. Closing stops the turns and waits for those under way.
 */
final class MaintenanceLoop implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(MaintenanceLoop.class);
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(30);

    private final ScheduledExecutorService executor;

    private MaintenanceLoop(ScheduledExecutorService executor) {
        this.executor = executor;
    }

    static MaintenanceLoop start(List<Queues> shards, Duration every) {
        if (every == null || every.isNegative() || every.isZero()) {
            throw new IllegalArgumentException("the maintenance interval must be a positive duration, got " + every);
        }
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(shards.size(),
                Thread.ofPlatform().name("queue-maintenance-", 0).daemon().factory());
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        for (int i = 0; i < shards.size(); i++) {
            executor.scheduleWithFixedDelay(new Turn(i, shards.get(i)), 0, every.toMillis(), TimeUnit.MILLISECONDS);
        }
        return new MaintenanceLoop(executor);
    }

    private record Turn(int shard, Queues queues, AtomicBoolean down) implements Runnable {
        Turn(int shard, Queues queues) {
            this(shard, queues, new AtomicBoolean());
        }

        @Override
        public void run() {
            try {
                queues.maintain();
                if (down.getAndSet(false)) {
                    log.info("queue shard {}: maintenance resumed", shard);
                }
            } catch (QueueUnavailableException e) {
                if (!down.getAndSet(true)) {
                    log.warn("queue shard {}: maintenance paused, the database is unavailable: {}", shard,
                            e.getMessage());
                }
            } catch (RuntimeException e) {
                // Never let an exception escape: a scheduled task that throws is never run again.
                log.error("queue shard {}: maintenance failed; trying again next turn", shard, e);
            }
        }
    }

    @Override
    public void close() {
        executor.shutdown();
        try {
            if (!executor.awaitTermination(CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                executor.shutdownNow();
            }
        } catch (InterruptedException e) {
            executor.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
