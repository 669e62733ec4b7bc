package dev.gantry.queue;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import javax.sql.DataSource;

/**
 * Records, inside the database, every committed change of a message to DONE: a trigger on the queue's hot table
 * writes one row per transition into {@code public.completion_audit}, in the completing transaction. So it counts
 * the completions that really committed, whatever the client saw (a commit whose answer was lost in a restart still
 * counts, a {@code complete} that failed does not). With fencing by attempt number there must be exactly one per
 * message, however often it was delivered.
 */
final class CompletionAudit {
    private CompletionAudit() {
    }

    /** Installs the trigger; call after {@link Queues#start} has created the schema. Idempotent. */
    static void install(DataSource dataSource) {
        execute(dataSource, """
                CREATE TABLE IF NOT EXISTS public.completion_audit (
                    id bigint NOT NULL, attempt integer NOT NULL, worker text, at timestamptz NOT NULL
                );
                CREATE OR REPLACE FUNCTION public.audit_completion() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    INSERT INTO public.completion_audit VALUES (NEW.id, NEW.attempt, NEW.worker, clock_timestamp());
                    RETURN NULL;
                END $$;
                CREATE OR REPLACE TRIGGER audit_completion AFTER UPDATE ON gantry_queue.message
                    FOR EACH ROW WHEN (NEW.state = 2 AND OLD.state <> 2) EXECUTE FUNCTION public.audit_completion();
                """);
    }

    /** How many committed completions each message had. */
    static Map<Long, Integer> completions(DataSource dataSource) {
        Map<Long, Integer> counts = new HashMap<>();
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT id, count(*) FROM public.completion_audit GROUP BY id")) {
            while (rs.next()) {
                counts.put(rs.getLong(1), rs.getInt(2));
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the completion audit: " + e.getMessage(), e);
        }
        return counts;
    }

    /** How many distinct messages the database holds, live or archived: to catch phantom or duplicate enqueues. */
    static long messages(DataSource dataSource) {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(DISTINCT id) FROM (SELECT id FROM gantry_queue.message "
                     + "UNION ALL SELECT id FROM gantry_queue.message_archive) m")) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot count messages: " + e.getMessage(), e);
        }
    }

    static void execute(DataSource dataSource, String sql) {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot run " + sql + ": " + e.getMessage(), e);
        }
    }
}
