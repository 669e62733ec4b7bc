package dev.gantry.queue;

import java.sql.SQLException;
import java.time.Duration;

/**
 * Decides, in one place, whether a database failure means "unavailable, try later" (connection lost, server shutting
 * down or starting, read-only, out of connections or disk) rather than a bug or a bad request.
 */
final class SqlFailures {
    static final Duration RETRY_AFTER = Duration.ofSeconds(5);

    private SqlFailures() {
    }

    /** The failure as the queue reports it: {@link QueueUnavailableException} for a database that cannot take it now. */
    static RuntimeException translate(String what, Throwable e) {
        if (e instanceof QueueException q) {
            return q;
        }
        String state = sqlState(e);
        if (state == null && e instanceof RuntimeException r && !unavailable(null, e)) {
            return r; // not the database's doing: a bug or a bad argument, passed on as it is
        }
        if (unavailable(state, e)) {
            return new QueueUnavailableException(what + " failed: the database is unavailable (SQLState " + state
                    + ")", RETRY_AFTER, e);
        }
        return new QueueException(what + " failed (SQLState " + state + ")", e);
    }

    static boolean unavailable(String state, Throwable e) {
        if (state == null) {
            return hasCause(e, java.net.ConnectException.class) || hasCause(e, java.sql.SQLTransientConnectionException.class);
        }
        return state.startsWith("08")          // connection exceptions
                || state.equals("25006")       // read_only_sql_transaction
                || state.startsWith("57P")     // admin/crash shutdown, cannot connect now
                || state.equals("53300")       // too_many_connections
                || state.equals("53100")       // disk_full
                || state.equals("40001")       // serialization_failure: try again
                || state.equals("40P01");      // deadlock_detected: try again
    }

    /** The first SQLState in {@code e}'s cause chain, or null. */
    static String sqlState(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s && s.getSQLState() != null) {
                return s.getSQLState();
            }
        }
        return null;
    }

    private static boolean hasCause(Throwable e, Class<? extends Throwable> type) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }
}
