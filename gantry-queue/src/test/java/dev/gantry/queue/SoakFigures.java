package dev.gantry.queue;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import javax.sql.DataSource;

/** What the soak test reads from the database, and the latency samples it collects, one report window at a time. */
final class SoakFigures {
    private SoakFigures() {
    }

    /** One look at the database: the hot table's partitions, the backlog, and how far back the oldest xmin is. */
    record Tables(long deadHot, long liveHot, int hotPartitions, long ready, long deadCatalog, long oldestXminAge) {
    }

    static Tables read(DataSource dataSource) {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            // Statistics are cached per transaction and the collector writes them every 500 ms or so: accept that.
            s.execute("SELECT pg_stat_clear_snapshot()");
            long deadHot;
            long liveHot;
            int partitions;
            try (ResultSet rs = s.executeQuery("""
                    SELECT coalesce(sum(st.n_dead_tup), 0), coalesce(sum(st.n_live_tup), 0), count(*)
                    FROM pg_inherits i JOIN pg_stat_user_tables st ON st.relid = i.inhrelid
                    WHERE i.inhparent = 'gantry_queue.message'::regclass
                    """)) {
                rs.next();
                deadHot = rs.getLong(1);
                liveHot = rs.getLong(2);
                partitions = rs.getInt(3);
            }
            long ready = single(s, "SELECT count(*) FROM gantry_queue.message WHERE state = 0");
            // Creating and dropping partitions leaves dead rows in the catalogs, which an old snapshot also keeps.
            long deadCatalog = single(s, """
                    SELECT coalesce(sum(n_dead_tup), 0) FROM pg_stat_sys_tables
                    WHERE schemaname = 'pg_catalog'
                      AND relname IN ('pg_class', 'pg_attribute', 'pg_depend', 'pg_type', 'pg_index', 'pg_inherits',
                                      'pg_constraint', 'pg_trigger')
                    """);
            long xminAge = single(s, "SELECT coalesce(max(age(backend_xmin)), 0) FROM pg_stat_activity");
            return new Tables(deadHot, liveHot, partitions, ready, deadCatalog, xminAge);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the soak figures: " + e.getMessage(), e);
        }
    }

    private static long single(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Latency samples of one window; {@link #drain()} hands them over and starts the next window. Thread-safe. */
    static final class Latencies {
        private long[] nanos = new long[1024];
        private int size;

        synchronized void add(long sample) {
            if (size == nanos.length) {
                nanos = Arrays.copyOf(nanos, size * 2);
            }
            nanos[size++] = sample;
        }

        /** This window's samples in milliseconds: count, p50, p99 and max. */
        synchronized Summary drain() {
            long[] sorted = Arrays.copyOf(nanos, size);
            size = 0;
            Arrays.sort(sorted);
            return new Summary(sorted.length, millis(sorted, 0.50), millis(sorted, 0.99),
                    sorted.length == 0 ? 0 : sorted[sorted.length - 1] / 1e6);
        }

        private static double millis(long[] sorted, double quantile) {
            if (sorted.length == 0) {
                return 0;
            }
            return sorted[(int) Math.min(sorted.length - 1, Math.floor(quantile * sorted.length))] / 1e6;
        }
    }

    record Summary(int count, double p50, double p99, double max) {
    }
}
