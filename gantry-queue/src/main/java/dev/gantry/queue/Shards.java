package dev.gantry.queue;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.IntFunction;
import javax.sql.DataSource;

/**
 * N independent queues, one per PostgreSQL database, and the routing of work to them by a key (the project). Each
 * shard has its own database, workers and maintenance, so a shard that is down, read-only or overloaded stops only
 * its own keys' work; the others go on. A shard's messages stay on it: when it returns, its workers pick up where
 * they stopped.
 *
 * <p>Routing is {@link ShardHash}: a published, frozen function of the key's UTF-8 bytes and the number of shards.
 * The number of shards is fixed per deployment: changing it moves keys to other shards, and nothing migrates them
 * yet. Message ids are unique within a shard only; a message is named by its shard and its id ({@link Routed}).
 *
 * <p>To enqueue in the caller's own transaction, open that transaction on the database of {@link #forKey(String)}
 * and call {@link Queues#enqueue(org.jdbi.v3.core.Handle, NewMessage)} there.
 *
 * <p>Thread-safe and immutable. Failures of one shard surface as that shard's {@link QueueUnavailableException},
 * with the shard's index in the message, and never affect calls routed to another shard. {@link #close()} closes
 * every shard's {@link Queues}; the data sources stay the caller's to close.
 */
public final class Shards implements AutoCloseable {
    /** Where {@link #enqueue(String, NewMessage)} put a message: the shard's index and the shard's answer. */
    public record Routed(int shard, Enqueued enqueued) {
    }

    private final List<Queues> shards;

    private Shards(List<Queues> shards) {
        if (shards.isEmpty()) {
            throw new IllegalArgumentException("there must be at least one shard");
        }
        shards.forEach(q -> Objects.requireNonNull(q, "shard"));
        this.shards = List.copyOf(shards);
    }

    /** Shards over queues already started, in shard order: index i of the list is shard i. Closing closes them. */
    public static Shards of(List<Queues> shards) {
        return new Shards(shards);
    }

    /**
     * Starts a {@link Queues} on each database, in shard order (index i is shard i), migrating each.
     *
     * @throws QueueUnavailableException naming the shard, if one of them cannot be reached now: a deployment starts
     *                                   with all its shards, since routing needs every one of them to exist
     */
    public static Shards start(List<? extends DataSource> dataSources, QueueSettings settings) {
        return start(dataSources, settings, shard -> Metrics.globalRegistry);
    }

    /**
     * As {@link #start(List, QueueSettings)}, with each shard's meters in a registry of its own, {@code registryOfShard}
     * of its index: the meters of every shard have the same names and tags, so one registry would keep only the first
     * shard's.
     */
    public static Shards start(List<? extends DataSource> dataSources, QueueSettings settings,
                               IntFunction<MeterRegistry> registryOfShard) {
        List<Queues> started = new ArrayList<>(dataSources.size());
        try {
            for (int i = 0; i < dataSources.size(); i++) {
                int shard = i;
                started.add(onShard(shard, () -> Queues.start(dataSources.get(shard), settings,
                        registryOfShard.apply(shard))));
            }
        } catch (RuntimeException e) {
            started.forEach(Queues::close);
            throw e;
        }
        return new Shards(started);
    }

    /** How many shards there are. */
    public int size() {
        return shards.size();
    }

    /** The index of the shard that owns {@code routingKey}; the same in every release (see {@link ShardHash}). */
    public int shardOf(String routingKey) {
        return ShardHash.shardOf(routingKey, shards.size());
    }

    /** The queue of the shard that owns {@code routingKey}. */
    public Queues forKey(String routingKey) {
        return shards.get(shardOf(routingKey));
    }

    /** The queue of shard {@code index}, from 0. */
    public Queues shard(int index) {
        if (index < 0 || index >= shards.size()) {
            throw new IllegalArgumentException("shard index must be from 0 to " + (shards.size() - 1) + ", got "
                    + index);
        }
        return shards.get(index);
    }

    /** Every shard's queue, in shard order. */
    public List<Queues> all() {
        return shards;
    }

    /**
     * Enqueues on the shard that owns {@code routingKey}, in a transaction of its own.
     *
     * @throws QueueUnavailableException if that shard cannot take it now (answer 503 with its
     *                                   {@link QueueUnavailableException#retryAfter()}); other shards are unaffected
     */
    public Routed enqueue(String routingKey, NewMessage message) {
        int shard = shardOf(routingKey);
        return new Routed(shard, onShard(shard, () -> shards.get(shard).enqueue(message)));
    }

    /**
     * Starts one {@link Worker} per shard for {@code queue}, each with {@code options} (so the same name: a worker's
     * name is recorded on messages in its own shard's database only) and the same handler. Each shard's worker backs
     * off on its own while its database is unavailable.
     */
    public ShardWorkers startWorkers(String queue, Worker.Handler handler, Worker.Options options) {
        Objects.requireNonNull(handler, "handler");
        return startWorkersPerShard(queue, shard -> handler, options);
    }

    /** Like {@link #startWorkers}, with a handler made for each shard, for handlers that need to know the shard. */
    public ShardWorkers startWorkersPerShard(String queue, IntFunction<Worker.Handler> handlerForShard,
                                             Worker.Options options) {
        Queues.checkName(queue);
        Objects.requireNonNull(options, "options");
        List<Worker> workers = new ArrayList<>(shards.size());
        try {
            for (int i = 0; i < shards.size(); i++) {
                workers.add(Worker.start(shards.get(i), queue, handlerForShard.apply(i), options));
            }
        } catch (RuntimeException e) {
            new ShardWorkers(workers).close();
            throw e;
        }
        return new ShardWorkers(workers);
    }

    /**
     * Runs {@link Queues#maintain()} on every shard once, in shard order. A shard that fails does not stop the
     * others: its failure is returned under its index.
     *
     * @return the failures by shard; empty when every shard was maintained
     */
    public Map<Integer, QueueException> maintain() {
        Map<Integer, QueueException> failures = new LinkedHashMap<>();
        for (int i = 0; i < shards.size(); i++) {
            try {
                shards.get(i).maintain();
            } catch (QueueException e) {
                failures.put(i, e);
            }
        }
        return failures;
    }

    /**
     * Runs {@link Queues#maintain()} on each shard every {@code every}, on a thread per shard, so that a shard whose
     * database hangs or is down delays no other shard's maintenance. Failures are logged (once per outage, not once
     * per turn) and the next turn tries again. Close the result to stop; closing waits for turns under way.
     */
    public AutoCloseable startMaintenance(Duration every) {
        return MaintenanceLoop.start(shards, every);
    }

    /** Closes every shard's {@link Queues}. Stop the workers and maintenance started from here first. */
    @Override
    public void close() {
        shards.forEach(Queues::close);
    }

    private static <T> T onShard(int shard, java.util.function.Supplier<T> body) {
        try {
            return body.get();
        } catch (QueueUnavailableException e) {
            throw new QueueUnavailableException("shard " + shard + ": " + e.getMessage(), e.retryAfter(), e);
        }
    }
}
