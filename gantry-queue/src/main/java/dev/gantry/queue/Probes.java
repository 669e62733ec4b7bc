package dev.gantry.queue;

import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.jdbi.v3.core.Jdbi;

/** Reads the queues' depths and the database's health, for {@link Queues#stats()} and {@link Queues#health()}. */
final class Probes {
    /** A WAL position older than this is read again: a rate averaged over hours says nothing about now. */
    static final Duration WAL_SAMPLE_MAX_AGE = Duration.ofMinutes(1);

    private final Jdbi jdbi;
    private final QueueSettings settings;
    private final AtomicReference<long[]> lastWal = new AtomicReference<>(); // {lsn bytes, nanoTime}

    Probes(Jdbi jdbi, QueueSettings settings) {
        this.jdbi = jdbi;
        this.settings = settings;
    }

    List<QueueStats> stats() {
        Instant now = settings.clock().instant();
        return Queues.call("stats", () -> jdbi.withHandle(h -> h.createQuery(MessageSql.STATS)
                .bind("now", Queues.ts(now))
                .map((rs, ctx) -> {
                    OffsetDateTime due = rs.getObject("oldest_due", OffsetDateTime.class);
                    return new QueueStats(rs.getString("queue"), rs.getLong("ready"), rs.getLong("running"),
                            rs.getLong("dead"), due == null ? Duration.ZERO : Duration.between(due.toInstant(), now));
                }).list()));
    }

    DatabaseHealth health() {
        return Queues.call("health", () -> jdbi.withHandle(h -> {
            long[] before = lastWal.get();
            if (before == null || System.nanoTime() - before[1] > WAL_SAMPLE_MAX_AGE.toNanos()) {
                before = new long[] {h.createQuery(MessageSql.WAL_POSITION).mapTo(Long.class).one(), System.nanoTime()};
                Thread.sleep(200);
            }
            long wal = h.createQuery(MessageSql.WAL_POSITION).mapTo(Long.class).one();
            long at = System.nanoTime();
            lastWal.set(new long[] {wal, at});
            double walPerSecond = (wal - before[0]) / Math.max(1e-9, (at - before[1]) / 1e9);
            long[] tuples = h.createQuery(MessageSql.TUPLES)
                    .map((rs, ctx) -> new long[] {rs.getLong(1), rs.getLong(2)}).one();
            long start = System.nanoTime();
            // txid_current() assigns a transaction id, so the commit writes and flushes a commit record
            h.useTransaction(tx -> tx.createQuery("SELECT txid_current()").mapTo(Long.class).one());
            Duration commit = Duration.ofNanos(System.nanoTime() - start);
            return new DatabaseHealth(walPerSecond, tuples[0], tuples[1], commit);
        }));
    }
}
