package dev.gantry.bench.queue;

import java.sql.SQLException;
import java.util.List;
import javax.sql.DataSource;

/**
 * One durable queue under test, behind the few operations the workloads need. An adapter uses its library the way
 * the library's documentation recommends for throughput, and runs a no-op handler that only tells the
 * {@link StartProbe} when a message starts.
 *
 * <p>Lifecycle: {@link #setup} once on a fresh database, {@link #enqueue} any time after, {@link #start} once,
 * {@link #close} once. {@link #enqueue} and {@link #pending} are called from several threads at once.
 */
interface QueueSystem extends AutoCloseable {

    /** The name in tables and in the database name, like {@code gantry-queue}. */
    String name();

    /** How the system is configured, in one line for the report. */
    String describe(QueueBenchConfig config);

    /** Creates the system's schema on an empty database and prepares enqueuing; does not start workers. */
    void setup(DataSource dataSource, QueueBenchConfig config) throws Exception;

    /**
     * Enqueues one message per element, in one transaction where the library offers a batch; each message carries
     * its element, the producer's nanoTime before this call, back to {@link StartProbe#started}. Returns once the
     * messages are committed.
     */
    void enqueue(List<Long> enqueuedNanos) throws Exception;

    /** Starts {@code config.workers()} handlers that call {@code probe} and do nothing else. */
    void start(StartProbe probe) throws Exception;

    /** Messages enqueued and not yet completed (ready, claimed or running), as committed in the database. */
    long pending() throws SQLException;

    /** The schemas holding the system's tables, whose dead tuples count against it. */
    List<String> schemas();

    /** Stops the workers (waiting for messages in flight) and any background threads; idempotent. */
    @Override
    void close();
}
