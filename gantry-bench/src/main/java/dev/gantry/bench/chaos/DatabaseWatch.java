package dev.gantry.bench.chaos;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collection;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import javax.sql.DataSource;

/**
 * What the driver reads from the database behind the servers' backs: which pipelines finished (to keep the backlog
 * bounded), and, sampled every few seconds, the most dead tuples any table had and the size of {@code pg_wal}. Every
 * read may fail while the database is down; the caller tries again later. Thread-safe.
 */
final class DatabaseWatch {
    /** A pipeline is final when it errored, or was planned and none of its workflows is still going. */
    private static final String FINISHED = """
            SELECT p.id::text FROM gantry.pipeline p
            WHERE p.id = ANY (?::uuid[])
              AND (p.state = 'errored'
                   OR (p.state = 'created'
                       AND EXISTS (SELECT 1 FROM gantry.workflow w WHERE w.pipeline_id = p.id)
                       AND NOT EXISTS (SELECT 1 FROM gantry.workflow w WHERE w.pipeline_id = p.id
                                       AND w.status IN ('running', 'on_hold', 'failing'))))
            """;

    private final DataSource database;
    private final Path walDirectory;
    private final AtomicLong deadTuplesMax = new AtomicLong();
    private final AtomicReference<String> deadTuplesTable = new AtomicReference<>("-");
    private final AtomicLong walBytesMax = new AtomicLong();

    DatabaseWatch(DataSource database, Path walDirectory) {
        this.database = database;
        this.walDirectory = walDirectory;
    }

    /** Those of {@code ids} whose pipelines are final. */
    Set<String> finished(Collection<String> ids) throws SQLException {
        Set<String> done = new HashSet<>();
        try (Connection c = database.getConnection(); PreparedStatement query = c.prepareStatement(FINISHED)) {
            Array array = c.createArrayOf("text", ids.toArray());
            query.setArray(1, array);
            try (ResultSet rows = query.executeQuery()) {
                while (rows.next()) {
                    done.add(rows.getString(1));
                }
            }
        }
        return done;
    }

    /**
     * Takes one sample: the table with most dead tuples now, and the bytes under {@code pg_wal}. Statistics restart
     * at zero after PostgreSQL's crash recovery, so the maximum is over samples, not over the last one.
     */
    void sample() {
        try (Connection c = database.getConnection(); Statement s = c.createStatement();
             ResultSet rows = s.executeQuery("SELECT schemaname || '.' || relname, n_dead_tup FROM pg_stat_user_tables"
                     + " ORDER BY n_dead_tup DESC LIMIT 1")) {
            if (rows.next() && rows.getLong(2) > deadTuplesMax.get()) {
                deadTuplesMax.set(rows.getLong(2));
                deadTuplesTable.set(rows.getString(1));
            }
        } catch (SQLException down) {
            // the database is away; the next sample will see it
        }
        walBytesMax.accumulateAndGet(directorySize(walDirectory), Math::max);
    }

    /** A single count from the database, e.g. {@code SELECT count(*) FROM gantry.pipeline}. */
    long count(String sql) throws SQLException {
        try (Connection c = database.getConnection(); Statement s = c.createStatement();
             ResultSet rows = s.executeQuery(sql)) {
            rows.next();
            return rows.getLong(1);
        }
    }

    /**
     * What the usage ledger (docs/usage.md) got wrong, each a count of task attempts: charged more than once, charged
     * in a retry that carried the node over without running it, and ended after an agent had it (so the usage rule
     * charges it) without a charge although its organization's charging was on.
     */
    record DoubleUsage(long chargedTwice, long chargedNotRun, long uncharged) {
        long total() {
            return chargedTwice + chargedNotRun + uncharged;
        }
    }

    DoubleUsage doubleUsage() throws SQLException {
        return new DoubleUsage(count("""
                SELECT count(*) FROM (SELECT 1 FROM gantry.usage_charge GROUP BY job_id, node_index
                                      HAVING count(*) > 1) twice
                """), count("""
                SELECT count(*) FROM gantry.usage_charge u
                JOIN gantry.job_task t ON t.job_id = u.job_id AND t.node_index = u.node_index
                WHERE t.carried_from IS NOT NULL
                """), count("""
                SELECT count(*) FROM gantry.job_task t
                JOIN gantry.job j ON j.id = t.job_id
                JOIN gantry.project p ON p.id = j.project_id
                WHERE t.accepted_at IS NOT NULL AND t.started_at IS NOT NULL AND j.resource_class IS NOT NULL
                  AND coalesce(t.given_up_at, t.stopped_at) IS NOT NULL
                  AND t.status IN ('success', 'failed', 'canceled', 'infrastructure_fail')
                  AND coalesce((SELECT charging FROM gantry.usage_organization o
                                WHERE o.organization = p.organization), true)
                  AND NOT EXISTS (SELECT 1 FROM gantry.usage_charge u
                                  WHERE u.job_id = t.job_id AND u.node_index = t.node_index)
                """));
    }

    /**
     * A task of a job: its node, status, whether the lease sweeper gave it up, the outcome an agent reported after
     * that (null if none came), and the agent it ran on.
     */
    record TaskState(int node, String status, boolean givenUp, String superseded, String agent) {
    }

    /** The tasks of job number {@code number} (the trace's build number) in {@code pipeline}. */
    java.util.List<TaskState> tasks(String pipeline, long number) throws SQLException {
        java.util.List<TaskState> tasks = new java.util.ArrayList<>();
        try (Connection c = database.getConnection(); PreparedStatement query = c.prepareStatement("""
                SELECT t.node_index, t.status, t.given_up_at IS NOT NULL, t.superseded_status, a.name
                FROM gantry.job j
                JOIN gantry.workflow w ON w.id = j.workflow_id
                JOIN gantry.job_task t ON t.job_id = j.id
                LEFT JOIN gantry.agent a ON a.id = t.agent_id
                WHERE w.pipeline_id = ?::uuid AND j.number = ?
                ORDER BY t.node_index
                """)) {
            query.setString(1, pipeline);
            query.setLong(2, number);
            try (ResultSet rows = query.executeQuery()) {
                while (rows.next()) {
                    tasks.add(new TaskState(rows.getInt(1), rows.getString(2), rows.getBoolean(3), rows.getString(4),
                            rows.getString(5)));
                }
            }
        }
        return tasks;
    }

    /** Writes every job node as a tab-separated line to {@code file}, for a look after a failed check. */
    void dumpTasks(Path file) throws SQLException, IOException {
        StringBuilder text = new StringBuilder("pipeline\tproject\tjob\tnumber\tattempt\tjob_status\tnode\t"
                + "task_status\tagent\tstarted_at\tstopped_at\tgiven_up_at\tsuperseded_status\n");
        try (Connection c = database.getConnection(); Statement s = c.createStatement();
             ResultSet rows = s.executeQuery("""
                     SELECT w.pipeline_id, pr.name, j.name, j.number, j.attempt, j.status, t.node_index, t.status,
                            a.name, t.started_at, t.stopped_at, t.given_up_at, t.superseded_status
                     FROM gantry.job j
                     JOIN gantry.workflow w ON w.id = j.workflow_id
                     JOIN gantry.project pr ON pr.id = j.project_id
                     LEFT JOIN gantry.job_task t ON t.job_id = j.id
                     LEFT JOIN gantry.agent a ON a.id = t.agent_id
                     ORDER BY t.started_at NULLS LAST, j.number, t.node_index
                     """)) {
            int columns = rows.getMetaData().getColumnCount();
            while (rows.next()) {
                for (int i = 1; i <= columns; i++) {
                    text.append(rows.getString(i)).append(i == columns ? "\n" : "\t");
                }
            }
        }
        Files.writeString(file, text);
    }

    long deadTuplesMax() {
        return deadTuplesMax.get();
    }

    String deadTuplesTable() {
        return deadTuplesTable.get();
    }

    long walBytesMax() {
        return walBytesMax.get();
    }

    private static long directorySize(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(f -> {
                try {
                    return Files.size(f);
                } catch (IOException gone) {
                    return 0; // a segment recycled while we looked
                }
            }).sum();
        } catch (IOException | java.io.UncheckedIOException e) {
            return 0;
        }
    }
}
