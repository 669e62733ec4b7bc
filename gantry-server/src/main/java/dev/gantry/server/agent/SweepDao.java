package dev.gantry.server.agent;

import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

/**
 * Every statement on {@code gantry.lease_sweep}: which servers' lease sweepers reach the database. Times are the
 * database's, so servers whose clocks differ still agree on who swept lately.
 */
interface SweepDao {
    /**
     * Marks {@code server}'s sweep as done now, and forgets servers silent for a day (only the last seconds count, and
     * every server home that ever ran would otherwise keep a row).
     */
    @SqlUpdate("""
            WITH forgotten AS (DELETE FROM gantry.lease_sweep WHERE swept_at < now() - interval '1 day')
            INSERT INTO gantry.lease_sweep (server, swept_at) VALUES (:server, now())
            ON CONFLICT (server) DO UPDATE SET swept_at = now()
            """)
    void mark(String server);

    /** Whether a server other than {@code server} swept within the last {@code seconds}. */
    @SqlQuery("""
            SELECT EXISTS (SELECT 1 FROM gantry.lease_sweep
                           WHERE server <> :server AND swept_at > now() - make_interval(secs => :seconds))
            """)
    boolean othersSweptWithin(String server, double seconds);
}
