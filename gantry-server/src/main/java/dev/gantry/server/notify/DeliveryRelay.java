package dev.gantry.server.notify;

import dev.gantry.queue.QueueUnavailableException;
import dev.gantry.queue.Shards;
import dev.gantry.resilience.Backoff;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.JdbiException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves delivery turns from the main database's relay table ({@link DeliveryQueue#relayed}) to the queue of their
 * shard, one loop per shard on a thread of its own: a batch is locked in the main database, enqueued on the shard in
 * one transaction with each turn's unique key, and deleted from the relay as the main transaction commits. A crash
 * between the two commits leaves the rows to be relayed again, and the unique keys make that second enqueue the first.
 * A shard that cannot take its batch (stopped, read-only, hung up to its socket timeout) holds up only its own loop,
 * which tries again after {@link #BACKOFF} with full jitter, so other shards' turns keep moving.
 *
 * <p>Each loop runs when a transaction of this process relays a turn ({@link #wake()}, after the commit) and every
 * {@link #POLL_EVERY} for the turns other servers of the database wrote. {@link #close()} stops the loops, letting a
 * batch under way finish.
 */
final class DeliveryRelay implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DeliveryRelay.class);

    /** Turns moved per transaction. */
    static final int BATCH = 200;
    /** How often a loop looks for turns without being woken: the ones other servers of the database relay. */
    static final Duration POLL_EVERY = Duration.ofSeconds(1);
    /** The wait after a shard failed a batch: short at first, at most 10 s while it stays down. */
    static final Backoff BACKOFF = new Backoff(Duration.ofMillis(200), Duration.ofSeconds(10));

    private final Jdbi jdbi;
    private final Shards shards;
    private final List<Loop> loops = new ArrayList<>();

    private DeliveryRelay(Jdbi jdbi, Shards shards) {
        this.jdbi = jdbi;
        this.shards = shards;
    }

    /** Starts a loop per shard of {@code shards}, relaying from the main database of {@code jdbi}. */
    static DeliveryRelay start(Jdbi jdbi, Shards shards) {
        DeliveryRelay relay = new DeliveryRelay(jdbi, shards);
        for (int i = 0; i < shards.size(); i++) {
            Loop loop = relay.new Loop(i);
            relay.loops.add(loop);
            loop.thread = Thread.ofPlatform().name("notify-relay-" + i).daemon().start(loop::run);
        }
        return relay;
    }

    /** The shard that queues the deliveries of project {@code projectId}. */
    int shardOf(UUID projectId) {
        return shards.shardOf(projectId.toString());
    }

    /** Tells every loop that turns are waiting; their next batch starts at once unless a shard is backing off. */
    void wake() {
        loops.forEach(Loop::wake);
    }

    /** Moves one batch of shard {@code shard}'s turns; how many moved (0: none waited). */
    int relayOnce(int shard) {
        return jdbi.inTransaction(h -> {
            NotifyDao dao = h.attach(NotifyDao.class);
            List<NotifyDao.RelayRow> rows = dao.relayBatch(shard, BATCH);
            if (rows.isEmpty()) {
                return 0;
            }
            shards.shard(shard).enqueueAll(rows.stream().map(r -> new DeliveryQueue.Turn(r.deliveryId(),
                    r.projectId(), r.turn(), r.runAt() == null ? null : r.runAt().toInstant(), r.organization())
                    .message()).toList());
            dao.deleteRelayed(rows.stream().map(NotifyDao.RelayRow::deliveryId).toArray(UUID[]::new),
                    rows.stream().mapToInt(NotifyDao.RelayRow::turn).toArray());
            return rows.size();
        });
    }

    @Override
    public void close() {
        loops.forEach(Loop::stop);
        for (Loop loop : loops) {
            try {
                loop.thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private final class Loop {
        private final int shard;
        // java.util.Random for the jitter: one loop thread uses it.
        private final Random random = new Random();
        private Thread thread;
        private boolean woken;
        private boolean stopped;

        Loop(int shard) {
            this.shard = shard;
        }

        synchronized void wake() {
            woken = true;
            notifyAll();
        }

        synchronized void stop() {
            stopped = true;
            notifyAll();
        }

        void run() {
            int failures = 0;
            while (awaitTurn(failures == 0 ? POLL_EVERY : BACKOFF.delay(failures, random), failures == 0)) {
                try {
                    while (relayOnce(shard) == BATCH && !isStopped()) {
                        // a full batch: more may wait
                    }
                    if (failures > 0) {
                        LOG.info("queue shard {}: notification relay resumed after {} failed tries", shard, failures);
                    }
                    failures = 0;
                } catch (QueueUnavailableException | JdbiException e) { // the shard's database, or the main one
                    if (failures++ == 0) {
                        LOG.warn("queue shard {}: notification relay paused, retrying with backoff: {}", shard,
                                e.getMessage());
                    }
                } catch (RuntimeException e) {
                    failures++;
                    LOG.error("queue shard {}: notification relay failed; retrying with backoff", shard, e);
                }
            }
        }

        /**
         * Waits {@code wait}, or less when woken and {@code wakeable}: a shard backing off is not retried on every
         * commit. False once stopped.
         */
        private synchronized boolean awaitTurn(Duration wait, boolean wakeable) {
            Instant until = Instant.now().plus(wait);
            while (!stopped && !(wakeable && woken)) {
                long left = Duration.between(Instant.now(), until).toMillis();
                if (left <= 0) {
                    break;
                }
                try {
                    wait(left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
            woken = false;
            return !stopped;
        }

        private synchronized boolean isStopped() {
            return stopped;
        }
    }
}
