package dev.gantry.server.ui;

import dev.gantry.queue.WakeupCount;
import dev.gantry.server.storage.OutputStore;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells this server's live pages that what they show has changed, wherever the change was made. A change can reach
 * any server of the database (an agent's output call, a step report, a claim, a cancel, the orchestrator, the lease
 * sweeper) and is written by many code paths, so one watcher thread per server reads, every {@link #TICK}, a
 * fingerprint of every watched job and pipeline in one query ({@link LiveDao}) and the watched nodes' output lengths
 * in another ({@link OutputStore#lengths}), and wakes the streams whose fingerprint moved. The cost is two or three
 * indexed queries a tick per server, the same for one viewer or five hundred, and nothing while no page watches: the
 * thread parks. Streams wait on their {@link Watch} without a database connection. A failed tick is logged and
 * retried with backoff; pages then keep what they show until it works again. Thread-safe.
 */
final class LiveChanges implements AutoCloseable {
    /** How often the watcher reads while pages watch: a change shows within this plus the page's own read. */
    static final Duration TICK = Duration.ofMillis(250);
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(5);
    private static final Logger LOG = LoggerFactory.getLogger(LiveChanges.class);

    /** A job's page shows one node: its task, steps and output. */
    record JobKey(UUID jobId, int node) {
    }

    record PipelineKey(UUID pipelineId) {
    }

    private final Jdbi jdbi;
    private final OutputStore output;
    private final Map<Object, Entry> watched = new ConcurrentHashMap<>();
    private volatile boolean closed;
    private Thread watcher;

    LiveChanges(Jdbi jdbi, OutputStore output) {
        this.jdbi = jdbi;
        this.output = output;
    }

    /** Starts watching {@code key} (a {@link JobKey} or {@link PipelineKey}) until the watch is closed. */
    Watch watch(Object key) {
        Entry entry = watched.compute(key, (k, old) -> {
            Entry e = old == null ? new Entry() : old;
            e.watchers++;
            return e;
        });
        startWatcher();
        return new Watch(key, entry);
    }

    /** How many keys are watched now. */
    int watchedKeys() {
        return watched.size();
    }

    private synchronized void startWatcher() {
        if (watcher == null && !closed) {
            watcher = Thread.ofPlatform().name("ui-live-watcher").daemon().start(this::watchLoop);
        }
        LockSupport.unpark(watcher);
    }

    private void watchLoop() {
        int failures = 0;
        while (!closed) {
            if (watched.isEmpty()) {
                LockSupport.park(this); // a new watch unparks
                continue;
            }
            Duration pause = TICK;
            try {
                tick();
                failures = 0;
            } catch (RuntimeException | IOException e) {
                failures++;
                pause = Duration.ofMillis(Math.min(MAX_BACKOFF.toMillis(), TICK.toMillis() << Math.min(failures, 5)));
                LOG.warn("Live pages cannot read changes ({} in a row), retrying in {} ms: {}", failures,
                        pause.toMillis(), e.toString());
            }
            LockSupport.parkNanos(this, pause.toNanos());
        }
    }

    /** Reads the fingerprints of everything watched and wakes the watches whose fingerprint moved. */
    void tick() throws IOException {
        List<Object> keys = new ArrayList<>(watched.keySet());
        List<UUID> jobs = keys.stream().filter(JobKey.class::isInstance).map(k -> ((JobKey) k).jobId()).distinct()
                .toList();
        List<OutputStore.Node> nodes = keys.stream().filter(JobKey.class::isInstance)
                .map(k -> new OutputStore.Node(((JobKey) k).jobId(), ((JobKey) k).node())).toList();
        UUID[] pipelines = keys.stream().filter(PipelineKey.class::isInstance)
                .map(k -> ((PipelineKey) k).pipelineId()).toArray(UUID[]::new);
        Map<UUID, String> digests = new HashMap<>();
        jdbi.useExtension(LiveDao.class, dao -> {
            if (!jobs.isEmpty()) {
                dao.jobs(jobs.toArray(UUID[]::new)).forEach(f -> digests.put(f.id(), f.digest()));
            }
            if (pipelines.length > 0) {
                dao.pipelines(pipelines).forEach(f -> digests.put(f.id(), f.digest()));
            }
        });
        Map<OutputStore.Node, Long> lengths = nodes.isEmpty() ? Map.of() : output.lengths(nodes);
        for (Object key : keys) {
            String digest = switch (key) {
                case JobKey job -> digests.get(job.jobId()) + "|" + lengths.get(
                        new OutputStore.Node(job.jobId(), job.node()));
                case PipelineKey pipeline -> digests.get(pipeline.pipelineId());
                default -> throw new IllegalStateException("unknown key " + key);
            };
            Entry entry = watched.get(key);
            if (entry != null && !digest.equals(entry.lastDigest)) {
                entry.lastDigest = digest; // the first sight counts as a change: nothing is missed before it
                entry.fire();
            }
        }
    }

    /** Stops the watcher and wakes every watch, whose streams then end. */
    @Override
    public void close() {
        closed = true;
        synchronized (this) {
            if (watcher != null) {
                LockSupport.unpark(watcher);
            }
        }
        watched.values().forEach(Entry::fire);
    }

    boolean closed() {
        return closed;
    }

    /** One stream's interest in a key; close it when the stream ends. */
    final class Watch implements AutoCloseable {
        private final Object key;
        private final Entry entry;
        private boolean released;

        private Watch(Object key, Entry entry) {
            this.key = key;
            this.entry = entry;
        }

        /** The change count now; pass it to {@link #await} so that a change in between is not missed. */
        long generation() {
            return entry.generation();
        }

        /** Waits until a change after {@code since}, {@code timeout} or the server's stop; true when changed. */
        boolean await(long since, Duration timeout) throws InterruptedException {
            return entry.await(since, timeout);
        }

        @Override
        public synchronized void close() {
            if (!released) {
                released = true;
                watched.computeIfPresent(key, (k, e) -> --e.watchers == 0 ? null : e);
            }
        }
    }

    /** A key's watchers, its last fingerprint (the watcher thread's alone) and its change count. */
    private static final class Entry {
        private final WakeupCount changes = new WakeupCount();
        private int watchers; // changed under the map's compute
        private volatile String lastDigest;

        long generation() {
            return changes.generation();
        }

        void fire() {
            changes.fire();
        }

        boolean await(long since, Duration timeout) throws InterruptedException {
            return changes.await(since, timeout);
        }
    }
}
