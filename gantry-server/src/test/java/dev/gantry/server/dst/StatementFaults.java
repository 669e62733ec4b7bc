package dev.gantry.server.dst;

import java.sql.PreparedStatement;
import org.jdbi.v3.core.statement.StatementContext;
import org.jdbi.v3.core.statement.StatementCustomizer;

/**
 * Crashes the server at a chosen statement: installed on the {@link org.jdbi.v3.core.Jdbi} the server code runs on,
 * it throws {@link Crash} before the k-th statement after {@link #arm}, and the transaction that statement belongs to
 * rolls back. Statements of transactions that committed before it stay committed, as after a real crash.
 * Single-threaded, as the simulation is.
 */
final class StatementFaults implements StatementCustomizer {
    private int countdown;
    private int seen;

    /** Crashes before the {@code k}-th statement from now (1 = the next one). */
    void arm(int k) {
        if (k < 1) {
            throw new IllegalArgumentException("k must be at least 1, got " + k);
        }
        countdown = k;
        seen = 0;
    }

    /** Disarms; returns whether the crash happened. */
    boolean disarm() {
        boolean fired = countdown == 0 && seen > 0;
        countdown = -1;
        return fired;
    }

    @Override
    public void beforeExecution(PreparedStatement statement, StatementContext ctx) {
        if (countdown > 0) {
            seen++;
            if (--countdown == 0) {
                throw new Crash(seen);
            }
        }
    }
}
