package dev.gantry.queue;

import java.time.Duration;

/** Turns database failures into the queue's exceptions; what counts as unavailable is {@link SqlStates}'s rule. */
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
        return SqlStates.unavailable(e);
    }

    /** The first SQLState in {@code e}'s cause chain, or null. */
    static String sqlState(Throwable e) {
        return SqlStates.sqlState(e);
    }
}
