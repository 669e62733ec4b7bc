package dev.gantry.queue;

import java.time.Duration;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

/** Turns database failures into the queue's exceptions; what counts as unavailable is {@link SqlStates}'s rule. */
final class SqlFailures {
    static final Duration RETRY_AFTER = Duration.ofSeconds(5);
    /** How long a caller waits after an enqueue met an epoch switch (see {@link #epochSwitch}). */
    static final Duration EPOCH_SWITCH_RETRY_AFTER = Duration.ofSeconds(1);

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
        if (epochSwitch(e)) {
            return new QueueUnavailableException(what + " failed: the queue was switching to a new epoch; retry",
                    EPOCH_SWITCH_RETRY_AFTER, e);
        }
        if (unavailable(state, e)) {
            return new QueueUnavailableException(what + " failed: the database is unavailable (SQLState " + state
                    + ")", RETRY_AFTER, e);
        }
        return new QueueException(what + " failed (SQLState " + state + ")", e);
    }

    /**
     * True when an insert found no partition of the hot table for its epoch: the newest epoch was read, but the
     * statement routed rows with the partitions it saw before that epoch's was attached. Seen once, in a benchmark
     * run (about one in two hundred epoch turns under its load). A new transaction routes with the partitions as they
     * are then, so it is retried at once where the queue owns the transaction, and is a short "unavailable" where the
     * caller does (its transaction is aborted, nothing of it was written).
     */
    static boolean epochSwitch(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof PSQLException psql && "23514".equals(psql.getSQLState())) {
                ServerErrorMessage detail = psql.getServerErrorMessage();
                return detail != null && "gantry_queue".equals(detail.getSchema())
                        && "message".equals(detail.getTable()) && String.valueOf(detail.getMessage())
                        .startsWith("no partition of relation");
            }
        }
        return false;
    }

    /**
     * True when the failed transaction can be run again at once: a serialisation conflict, a deadlock, or an epoch
     * switch. None means the database is away.
     */
    static boolean retryAtOnce(Throwable e) {
        String state = sqlState(e);
        return "40001".equals(state) || "40P01".equals(state) || epochSwitch(e);
    }

    static boolean unavailable(String state, Throwable e) {
        return SqlStates.unavailable(e);
    }

    /** The first SQLState in {@code e}'s cause chain, or null. */
    static String sqlState(Throwable e) {
        return SqlStates.sqlState(e);
    }
}
