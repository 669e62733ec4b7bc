package dev.gantry.queue;

import java.net.ConnectException;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;

/**
 * Reads database failures in one place for all of Gantry (the queue, and the server's 503s): whether a failure means
 * "the database cannot take this now, try later" (connection lost or refused, server shutting down or starting,
 * read-only, out of connections or disk, a statement that ran out of time, a serialisation conflict) rather than a bug
 * or a bad request.
 */
public final class SqlStates {
    private SqlStates() {
    }

    /** True when {@code failure} (or a cause of it) is the database being unavailable for now. */
    public static boolean unavailable(Throwable failure) {
        String state = sqlState(failure);
        if (state == null) {
            return hasCause(failure, ConnectException.class) || hasCause(failure, SQLTransientConnectionException.class);
        }
        return state.startsWith("08")          // connection exceptions
                || state.equals("25006")       // read_only_sql_transaction
                || state.startsWith("57P")     // admin/crash shutdown, cannot connect now
                || state.equals("53300")       // too_many_connections
                || state.equals("53100")       // disk_full
                || state.equals("57014")       // query_canceled: a statement_timeout ran out; try again
                || state.equals("40001")       // serialization_failure: try again
                || state.equals("40P01");      // deadlock_detected: try again
    }

    /**
     * True when {@code failure} is the database out of reach (no connection, or the server shutting down or starting)
     * rather than answering badly (read-only, slow, out of resources).
     */
    public static boolean unreachable(Throwable failure) {
        String state = sqlState(failure);
        if (state == null) {
            return hasCause(failure, ConnectException.class) || hasCause(failure, SQLTransientConnectionException.class);
        }
        return state.startsWith("08") || state.startsWith("57P");
    }

    /** The first SQLState in {@code failure}'s cause chain, or null. */
    public static String sqlState(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof SQLException s && s.getSQLState() != null) {
                return s.getSQLState();
            }
        }
        return null;
    }

    private static boolean hasCause(Throwable failure, Class<? extends Throwable> type) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }
}
