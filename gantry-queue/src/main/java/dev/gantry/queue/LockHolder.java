package dev.gantry.queue;

import java.time.Duration;
import java.util.Optional;
import org.jdbi.v3.core.Handle;

/**
 * Another session that has held a lock on one of the queue's tables for a long time: a transaction that read the
 * table and stayed open (a {@code pg_dump}, a psql session left in {@code BEGIN}, a long report). Maintenance must not
 * ask for an exclusive lock behind such a session, because every queue operation would then queue behind that request
 * until the session ends, freezing the queue; it skips its turn and names the session instead.
 *
 * <p>Found through {@code pg_locks} and {@code pg_stat_activity}. A role that cannot see other roles' sessions there
 * finds nothing, and maintenance falls back on its lock timeouts (short stalls instead of none).
 *
 * @param pid         the session's backend process id, for {@code pg_terminate_backend}
 * @param application its {@code application_name}
 * @param state       e.g. {@code idle in transaction}
 * @param open        how long its transaction has been open
 */
record LockHolder(int pid, String application, String state, Duration open) {
    /** Longer than any of the queue's own transactions, or a caller's that enqueues. */
    static final Duration LONG = Duration.ofSeconds(2);

    private static final String FIND = """
            SELECT a.pid, a.application_name, a.state,
                   CAST(EXTRACT(EPOCH FROM now() - a.xact_start) * 1000 AS bigint) AS open_ms
            FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
            WHERE l.locktype = 'relation' AND l.granted AND l.pid <> pg_backend_pid()
              AND l.relation = CAST(:table AS regclass)
              AND a.xact_start < now() - CAST(:long AS interval)
            ORDER BY a.xact_start
            LIMIT 1
            """;

    /** The oldest session holding a lock on {@code table} (schema-qualified) in a transaction open too long. */
    static Optional<LockHolder> on(Handle h, String table) {
        return h.createQuery(FIND).bind("table", table).bind("long", LONG.toMillis() + " milliseconds")
                .map((rs, ctx) -> new LockHolder(rs.getInt("pid"), rs.getString("application_name"),
                        rs.getString("state"), Duration.ofMillis(rs.getLong("open_ms"))))
                .findOne();
    }

    /** For the log: who, doing what, for how long. */
    String describe() {
        return "session " + pid + " (application '" + application + "', " + state + ") has held a lock on it in a "
                + "transaction open for " + open.toSeconds() + " s";
    }
}
