package dev.gantry.bench.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gantry.server.ServerSchema;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chaos suite's {@code double_usage} read from a ledger with one fault of each kind it counts but the first (the
 * ledger's primary key rules that out): a lost node's retry that charged the node it carried over, and a task that
 * ran and ended with no charge, which counts only while its organization's charging is on.
 */
class DoubleUsageIT {
    @RegisterExtension
    static final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension();

    @TempDir
    Path wal;

    @Test
    void counts_a_node_charged_without_running_and_an_ended_task_left_uncharged() throws Exception {
        ServerSchema.migrate(pg.dataSource());
        UUID project = UUID.randomUUID();
        UUID workflow = UUID.randomUUID();
        UUID lost = UUID.randomUUID();
        UUID retry = UUID.randomUUID();
        execute("""
                INSERT INTO gantry.project (id, organization, name, vcs_url, created_at) VALUES (?, 'acme', 'app',
                    '/srv/git/app', now())""", project);
        UUID pipeline = UUID.randomUUID();
        execute("""
                INSERT INTO gantry.pipeline (id, project_id, number, state, branch, revision, parameters, request_hash,
                                             created_at, updated_at)
                VALUES (?, ?, 1, 'created', 'main', 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678', '{}', '\\x00', now(),
                        now())""", pipeline, project);
        execute("""
                INSERT INTO gantry.workflow (id, pipeline_id, name, status, created_at)
                VALUES (?, ?, 'build', 'success', now())""", workflow, pipeline);
        job(lost, workflow, project, 1, "infrastructure_fail");
        job(retry, workflow, project, 2, "success");
        task(lost, 0, "success", null);
        charge(lost, 0);
        task(lost, 1, "infrastructure_fail", null); // given up, never charged: the fault
        task(retry, 0, "success", lost);
        charge(retry, 0); // carried over, yet charged: the other fault
        task(retry, 1, "success", null);
        charge(retry, 1);
        DatabaseWatch watch = new DatabaseWatch(pg.dataSource(), wal);

        assertThat(watch.doubleUsage()).isEqualTo(new DatabaseWatch.DoubleUsage(0, 1, 1));

        execute("""
                INSERT INTO gantry.usage_organization (organization, charging, updated_at, updated_by)
                VALUES ('acme', false, now(), 'admin')""");
        assertThat(watch.doubleUsage()).as("charging off: an uncharged task is due to the backfill, not a fault")
                .isEqualTo(new DatabaseWatch.DoubleUsage(0, 1, 0));
    }

    private static void job(UUID id, UUID workflow, UUID project, int attempt, String status) throws Exception {
        execute("""
                INSERT INTO gantry.job (id, workflow_id, project_id, number, name, attempt, type, status, requires,
                                        resource_class, cpu, memory_mb, parallelism, spec, created_at)
                VALUES (?, ?, ?, ?, 'test', ?, 'build', ?, '{}', 'medium', 2, 4096, 2, '{}', now())""",
                id, workflow, project, attempt, attempt, status);
    }

    /** A task that ran on an agent and ended; a carried one ({@code carriedFrom} set) was never accepted. */
    private static void task(UUID job, int node, String status, UUID carriedFrom) throws Exception {
        execute("""
                INSERT INTO gantry.job_task (job_id, node_index, status, queued_at, started_at, stopped_at, accepted_at,
                                             given_up_at, carried_from)
                VALUES (?, ?, ?, now() - interval '2 minutes', now() - interval '1 minute', now(),
                        CASE WHEN CAST(? AS uuid) IS NULL THEN now() - interval '1 minute' END,
                        CASE WHEN ? = 'infrastructure_fail' THEN now() END, ?)""",
                job, node, status, carriedFrom, status, carriedFrom);
    }

    private static void charge(UUID job, int node) throws Exception {
        execute("""
                INSERT INTO gantry.usage_charge (job_id, node_index, attempt, organization, project_id, project_name,
                                                 job_name, actor, resource_class, started_at, ended_at, run_ms,
                                                 minutes, credits_per_minute, credits, day, charged_at, backfilled)
                SELECT ?, ?, 1, 'acme', gen_random_uuid(), 'app', 'test', 'admin', 'medium', now(), now(), 60000, 1,
                       10, 10, current_date, now(), false""", job, node);
    }

    private static void execute(String sql, Object... arguments) throws Exception {
        try (Connection c = pg.dataSource().getConnection(); PreparedStatement statement = c.prepareStatement(sql)) {
            for (int i = 0; i < arguments.length; i++) {
                statement.setObject(i + 1, arguments[i]);
            }
            statement.executeUpdate();
        }
    }
}
