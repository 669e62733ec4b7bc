package dev.gantry.server.dst;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * What the database holds for one seed's project after an event, read in one transaction: the rows the invariants
 * are checked on, listed in stable orders (numbers, names, node indexes; never ids).
 */
record World(List<Pipeline> pipelines, List<Workflow> workflows, List<Job> jobs, List<Task> tasks, Queue queue) {

    record Pipeline(UUID id, long number, String state, String key) {
    }

    record Workflow(UUID id, long pipelineNumber, String name, String status, Instant stoppedAt, UUID rerunOf) {
    }

    record Job(UUID id, UUID workflowId, long number, String name, int attempt, String type, String status,
               Instant stoppedAt, int parallelism, boolean wasQueued) {
    }

    record Task(UUID jobId, long jobNumber, int node, String status, UUID lease, Instant leaseUntil) {
    }

    /**
     * Queue messages not done yet, of every queue: due now, waiting for a retry, held by a delivery; and the next
     * moment one becomes due or its lease runs out (null if none).
     */
    record Queue(int planDue, int advanceDue, int waiting, int held, Instant next) {
        boolean empty() {
            return planDue + advanceDue + waiting + held == 0;
        }
    }

    static World read(Jdbi jdbi, UUID projectId, Instant now) {
        // No transaction: nothing else runs while the simulation reads, and BEGIN and COMMIT would cost a round
        // trip each.
        return jdbi.withHandle(h -> new World(
                h.createQuery("""
                        SELECT id, number, state, idempotency_key FROM gantry.pipeline
                        WHERE project_id = :p ORDER BY number""").bind("p", projectId)
                        .map((rs, ctx) -> new Pipeline(rs.getObject(1, UUID.class), rs.getLong(2), rs.getString(3),
                                rs.getString(4))).list(),
                h.createQuery("""
                        SELECT w.id, p.number, w.name, w.status, w.stopped_at, w.rerun_of
                        FROM gantry.workflow w JOIN gantry.pipeline p ON p.id = w.pipeline_id
                        WHERE p.project_id = :p ORDER BY p.number, w.created_at, w.name""").bind("p", projectId)
                        .map((rs, ctx) -> new Workflow(rs.getObject(1, UUID.class), rs.getLong(2), rs.getString(3),
                                rs.getString(4), instant(rs.getObject(5, OffsetDateTime.class)),
                                rs.getObject(6, UUID.class))).list(),
                h.createQuery("""
                        SELECT id, workflow_id, number, name, attempt, type, status, stopped_at, parallelism,
                               queued_at IS NOT NULL
                        FROM gantry.job WHERE project_id = :p ORDER BY number""").bind("p", projectId)
                        .map((rs, ctx) -> new Job(rs.getObject(1, UUID.class), rs.getObject(2, UUID.class),
                                rs.getLong(3), rs.getString(4), rs.getInt(5), rs.getString(6), rs.getString(7),
                                instant(rs.getObject(8, OffsetDateTime.class)), rs.getInt(9), rs.getBoolean(10)))
                        .list(),
                h.createQuery("""
                        SELECT t.job_id, j.number, t.node_index, t.status, t.lease, t.lease_until
                        FROM gantry.job_task t JOIN gantry.job j ON j.id = t.job_id
                        WHERE j.project_id = :p ORDER BY j.number, t.node_index""").bind("p", projectId)
                        .map((rs, ctx) -> new Task(rs.getObject(1, UUID.class), rs.getLong(2), rs.getInt(3),
                                rs.getString(4), rs.getObject(5, UUID.class),
                                instant(rs.getObject(6, OffsetDateTime.class)))).list(),
                queue(h, now)));
    }

    /** One task as it is now, or null. */
    static Task task(Jdbi jdbi, UUID jobId, int node) {
        return jdbi.withHandle(h -> h.createQuery("""
                SELECT t.job_id, j.number, t.node_index, t.status, t.lease, t.lease_until
                FROM gantry.job_task t JOIN gantry.job j ON j.id = t.job_id
                WHERE t.job_id = :jobId AND t.node_index = :node """).bind("jobId", jobId).bind("node", node)
                .map((rs, ctx) -> new Task(rs.getObject(1, UUID.class), rs.getLong(2), rs.getInt(3),
                        rs.getString(4), rs.getObject(5, UUID.class),
                                instant(rs.getObject(6, OffsetDateTime.class)))).findOne().orElse(null));
    }

    private static Queue queue(Handle h, Instant now) {
        return h.createQuery("""
                SELECT count(*) FILTER (WHERE state = 0 AND run_at <= :now AND queue = 'pipeline-plan'),
                       count(*) FILTER (WHERE state = 0 AND run_at <= :now AND queue = 'workflow-advance'),
                       count(*) FILTER (WHERE state = 0 AND run_at > :now),
                       count(*) FILTER (WHERE state = 1),
                       min(CASE WHEN state = 0 AND run_at > :now THEN run_at WHEN state = 1 THEN lease_until END)
                FROM gantry_queue.message WHERE state IN (0, 1)""")
                .bind("now", now.atOffset(java.time.ZoneOffset.UTC))
                .map((rs, ctx) -> new Queue(rs.getInt(1), rs.getInt(2), rs.getInt(3), rs.getInt(4),
                        instant(rs.getObject(5, OffsetDateTime.class)))).one();
    }

    private static Instant instant(OffsetDateTime t) {
        return t == null ? null : t.toInstant();
    }

    Job job(UUID id) {
        return jobs.stream().filter(j -> j.id().equals(id)).findFirst().orElse(null);
    }

    Task task(UUID jobId, int node) {
        return tasks.stream().filter(t -> t.jobId().equals(jobId) && t.node() == node).findFirst().orElse(null);
    }
}
