package dev.gantry.server;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.gantry.db.Database;
import dev.gantry.db.DatabaseSettings;
import dev.gantry.db.DatabaseUrl;
import dev.gantry.queue.QueueSettings;
import dev.gantry.queue.Shards;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.core.instrument.config.MeterFilter;
import java.util.ArrayList;
import java.util.List;

/**
 * The queue shards of {@code GANTRY_QUEUE_SHARDS}: a pool and a queue on each database, in the order the setting
 * lists them (that order is the routing's: keep it). The server queues notification deliveries there
 * ({@link dev.gantry.server.notify.Notifier}); everything else stays on the main database. {@link #close()} closes
 * the queues, then the pools; stop the workers and maintenance first.
 */
final class QueueShards implements AutoCloseable {
    private final Shards shards;
    private final List<HikariDataSource> pools;

    private QueueShards(Shards shards, List<HikariDataSource> pools) {
        this.shards = shards;
        this.pools = pools;
    }

    /**
     * Opens a pool on each of {@code urls}, sized and timed as {@code pools} says, and starts the queue there, migrating
     * it. Every shard must answer now: routing needs all of them.
     *
     * @throws ServerStartException naming the shard that does not answer
     */
    static QueueShards start(List<DatabaseUrl> urls, DatabaseSettings pools, QueueSettings queue,
                             ServerMetrics metrics) {
        List<HikariDataSource> opened = new ArrayList<>(urls.size());
        try {
            for (int i = 0; i < urls.size(); i++) {
                HikariConfig config = Database.poolConfig(urls.get(i), pools);
                config.setPoolName("gantry-shard-" + i);
                // Open without a first connection: Shards.start says which shard does not answer.
                config.setInitializationFailTimeout(-1);
                HikariDataSource pool = new HikariDataSource(config);
                opened.add(pool);
                metrics.bindPool(pool);
            }
            return new QueueShards(Shards.start(opened, queue, shard -> shardMeters(shard, metrics.registry())),
                    List.copyOf(opened));
        } catch (RuntimeException e) {
            opened.forEach(HikariDataSource::close);
            throw new ServerStartException("Cannot start the queue shards of " + ServerSettings.QUEUE_SHARDS_VARIABLE
                    + ": " + e.getMessage(), e);
        }
    }

    /**
     * Where shard {@code shard}'s queue meters go: into {@code registry}, renamed from {@code gantry.queue.…} to
     * {@code gantry.queue.shard.…} and tagged {@code shard}, so that they neither collide with the main database's
     * queue meters nor differ from them in tag keys under one name, which Prometheus does not allow.
     */
    private static MeterRegistry shardMeters(int shard, MeterRegistry registry) {
        CompositeMeterRegistry meters = new CompositeMeterRegistry();
        meters.config().meterFilter(new MeterFilter() {
            @Override
            public Meter.Id map(Meter.Id id) {
                return id.withName(id.getName().replaceFirst("^gantry\\.queue\\.", "gantry.queue.shard."))
                        .withTag(Tag.of("shard", String.valueOf(shard)));
            }
        });
        return meters.add(registry);
    }

    Shards shards() {
        return shards;
    }

    @Override
    public void close() {
        shards.close();
        pools.forEach(HikariDataSource::close);
    }
}
