package dev.gantry.server.status;

import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * What this server's last evaluation learnt of its database: whether it could read, whether it could write and how
 * long the write took. The database row of the page is made from it alone, so each server shows the database as it
 * reaches it. Immutable.
 *
 * @param checkedAt     when the evaluation ended
 * @param readable      the figures could be read
 * @param writable      this server's request counts could be written (committed)
 * @param writeTime     how long that write took, commit included; null when it failed
 * @param failure       what went wrong, in words fit for a public page (never the database's own text); null when
 *                      nothing did
 * @param troubleSince  when reads or writes started failing, as this server saw it; null when they do not
 */
record DatabaseHealth(Instant checkedAt, boolean readable, boolean writable, Duration writeTime, String failure,
                      Instant troubleSince) {
    /** SQLSTATE of a write in a read-only transaction (a read-only database or a standby). */
    static final String READ_ONLY = "25006";

    DatabaseHealth {
        Objects.requireNonNull(checkedAt, "checkedAt");
        if (!readable && writable) {
            throw new IllegalArgumentException("an evaluation that could not read did not write");
        }
    }

    /** Reads and writes answered; the write took {@code writeTime}. */
    static DatabaseHealth healthy(Instant at, Duration writeTime) {
        return new DatabaseHealth(at, true, true, writeTime, null, null);
    }

    /** Words for a public page about {@code failure}: what kind of failure, from its SQLSTATE, never its message. */
    static String describe(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof SQLTimeoutException) {
                return "it did not answer in time";
            }
            if (t instanceof SQLTransientConnectionException) {
                return "no connection to it could be had";
            }
            if (t instanceof SQLException sql && sql.getSQLState() != null) {
                String state = sql.getSQLState();
                if (state.equals(READ_ONLY)) {
                    return "it is read-only";
                }
                if (state.startsWith("08")) {
                    return "the connection to it fails";
                }
                if (state.equals("57P01") || state.equals("57P02") || state.equals("57P03")) {
                    return "it is shutting down or starting up";
                }
                if (state.equals("57014")) {
                    return "it did not answer in time";
                }
                if (state.startsWith("53")) {
                    return "it is out of resources (SQLSTATE " + state + ")";
                }
                return "it failed with SQLSTATE " + state;
            }
        }
        return "it failed (" + failure.getClass().getSimpleName() + ")";
    }

    /** True when {@code failure} is a write refused because the database is read-only. */
    static boolean readOnly(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql && READ_ONLY.equals(sql.getSQLState())) {
                return true;
            }
        }
        return false;
    }
}
