package dev.gantry.server.dst;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;

/**
 * What the database holds for one seed's project after an event, read in one transaction: the rows the invariants
 * are checked on, listed in stable orders (numbers, names, node indexes; never ids).
 */
record World(List<Pipeline> pipelines, List<Workflow> workflows, List<Job> jobs, List<Task> tasks, Queue queue,
             List<Usage> usage, Ledger ledger) {

    record Pipeline(UUID id, long number, String state, String key) {
    }

    record Workflow(UUID id, long pipelineNumber, String name, String status, Instant stoppedAt, UUID rerunOf) {
    }

    record Job(UUID id, UUID workflowId, long number, String name, int attempt, String type, String status,
               Instant stoppedAt, int parallelism, boolean wasQueued) {
    }

    /** @param carriedFrom the lost attempt a retry carried this finished node over from (null: it runs here) */
    record Task(UUID jobId, long jobNumber, int node, String status, UUID lease, Instant leaseUntil,
                UUID carriedFrom) {
    }

    /** A task's record as the usage rule reads it, and its row in the ledger (null: not charged). */
    record Usage(UUID jobId, long jobNumber, int node, String status, String resourceClass, Instant startedAt,
                 Instant acceptedAt, Instant stoppedAt, Instant givenUpAt, Charged charged) {
    }

    /**
     * The ledger's months against its charges (the rig's tables hold one seed): the credits in {@code usage_month},
     * those of the charges counted into it, the charges with credits still to count (each with its queued
     * message), and the messages of the queue {@code usage-count} due now.
     */
    record Ledger(long monthCredits, long countedCredits, long uncounted, long countsDue) {
    }

    /** What the ledger charged a task. */
    record Charged(Instant endedAt, long runMs, long minutes, long credits) {
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

    /**
     * Everything in one round trip (the simulation reads it after every event): one row per pipeline, workflow, job
     * and task of the project, and one of queue counts, told apart by {@code kind} and ordered within it.
     */
    private static final String READ = """
            SELECT 0 AS kind, id AS a, NULL::uuid AS b, number AS n, idempotency_key AS t1, state AS t2,
                   NULL::timestamptz AS ts1, NULL::int AS i1, NULL::int AS i2, NULL::int AS i3, NULL::boolean AS f,
                   NULL::uuid AS c, NULL::timestamptz AS ts2, NULL::text AS t3
            FROM gantry.pipeline WHERE project_id = :p
            UNION ALL
            SELECT 1, w.id, w.rerun_of, p.number, w.name, w.status, w.stopped_at, NULL, NULL, NULL, NULL, NULL,
                   w.created_at, NULL
            FROM gantry.workflow w JOIN gantry.pipeline p ON p.id = w.pipeline_id WHERE p.project_id = :p
            UNION ALL
            SELECT 2, id, workflow_id, number, name, status, stopped_at, attempt, parallelism, NULL,
                   queued_at IS NOT NULL, NULL, NULL, type
            FROM gantry.job WHERE project_id = :p
            UNION ALL
            SELECT 3, t.job_id, t.carried_from, j.number, NULL, t.status, t.lease_until, t.node_index, NULL, NULL, NULL,
                   t.lease,
                   NULL, NULL
            FROM gantry.job_task t JOIN gantry.job j ON j.id = t.job_id WHERE j.project_id = :p
            UNION ALL
            SELECT 4, NULL, NULL, count(*) FILTER (WHERE state = 1), NULL, NULL,
                   min(CASE WHEN state = 0 AND run_at > :now THEN run_at WHEN state = 1 THEN lease_until END),
                   count(*) FILTER (WHERE state = 0 AND run_at <= :now AND queue = 'pipeline-plan'),
                   count(*) FILTER (WHERE state = 0 AND run_at <= :now AND queue = 'workflow-advance'),
                   count(*) FILTER (WHERE state = 0 AND run_at > :now), NULL, NULL, NULL, NULL
            FROM gantry_queue.message WHERE state IN (0, 1)
            ORDER BY kind, n, ts2, t1, i1
            """;

    static World read(Jdbi jdbi, UUID projectId, Instant now) {
        List<Pipeline> pipelines = new ArrayList<>();
        List<Workflow> workflows = new ArrayList<>();
        List<Job> jobs = new ArrayList<>();
        List<Task> tasks = new ArrayList<>();
        Queue[] queue = new Queue[1];
        jdbi.useHandle(h -> h.createQuery(READ).bind("p", projectId).bind("now", now.atOffset(ZoneOffset.UTC))
                .map((rs, ctx) -> {
                    UUID a = rs.getObject("a", UUID.class);
                    switch (rs.getInt("kind")) {
                        case 0 -> pipelines.add(new Pipeline(a, rs.getLong("n"), rs.getString("t2"),
                                rs.getString("t1")));
                        case 1 -> workflows.add(new Workflow(a, rs.getLong("n"), rs.getString("t1"),
                                rs.getString("t2"), instant(rs.getObject("ts1", OffsetDateTime.class)),
                                rs.getObject("b", UUID.class)));
                        case 2 -> jobs.add(new Job(a, rs.getObject("b", UUID.class), rs.getLong("n"),
                                rs.getString("t1"), rs.getInt("i1"), rs.getString("t3"), rs.getString("t2"),
                                instant(rs.getObject("ts1", OffsetDateTime.class)), rs.getInt("i2"),
                                rs.getBoolean("f")));
                        case 3 -> tasks.add(new Task(a, rs.getLong("n"), rs.getInt("i1"), rs.getString("t2"),
                                rs.getObject("c", UUID.class), instant(rs.getObject("ts1", OffsetDateTime.class)),
                                rs.getObject("b", UUID.class)));
                        default -> queue[0] = new Queue(rs.getInt("i1"), rs.getInt("i2"), rs.getInt("i3"),
                                rs.getInt("n"), instant(rs.getObject("ts1", OffsetDateTime.class)));
                    }
                    return kindOf(rs);
                }).list());
        return new World(List.copyOf(pipelines), List.copyOf(workflows), List.copyOf(jobs), List.copyOf(tasks),
                queue[0], usage(jdbi, projectId), ledger(jdbi, now));
    }

    private static Ledger ledger(Jdbi jdbi, Instant now) {
        return jdbi.withHandle(h -> h.createQuery("""
                SELECT (SELECT coalesce(sum(credits), 0) FROM gantry.usage_month),
                       (SELECT coalesce(sum(credits), 0) FROM gantry.usage_charge WHERE counted_at IS NOT NULL),
                       (SELECT count(*) FROM gantry.usage_charge WHERE counted_at IS NULL),
                       (SELECT count(*) FROM gantry_queue.message
                        WHERE queue = 'usage-count' AND state = 0 AND run_at <= :now)""")
                .bind("now", now.atOffset(ZoneOffset.UTC))
                .map((rs, ctx) -> new Ledger(rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4))).one());
    }

    private static List<Usage> usage(Jdbi jdbi, UUID projectId) {
        return jdbi.withHandle(h -> h.createQuery("""
                SELECT t.job_id, j.number, t.node_index, t.status, j.resource_class, t.started_at, t.accepted_at,
                       t.stopped_at, t.given_up_at, u.ended_at, u.run_ms, u.minutes, u.credits
                FROM gantry.job_task t
                JOIN gantry.job j ON j.id = t.job_id
                LEFT JOIN gantry.usage_charge u ON u.job_id = t.job_id AND u.node_index = t.node_index
                WHERE j.project_id = :p
                ORDER BY j.number, t.node_index""").bind("p", projectId)
                .map((rs, ctx) -> new Usage(rs.getObject(1, UUID.class), rs.getLong(2), rs.getInt(3),
                        rs.getString(4), rs.getString(5), instant(rs.getObject(6, OffsetDateTime.class)),
                        instant(rs.getObject(7, OffsetDateTime.class)), instant(rs.getObject(8, OffsetDateTime.class)),
                        instant(rs.getObject(9, OffsetDateTime.class)), rs.getObject(10) == null ? null
                        : new Charged(instant(rs.getObject(10, OffsetDateTime.class)), rs.getLong(11),
                        rs.getLong(12), rs.getLong(13)))).list());
    }

    private static int kindOf(java.sql.ResultSet rs) throws java.sql.SQLException {
        return rs.getInt("kind");
    }

    /** One task as it is now, or null. */
    static Task task(Jdbi jdbi, UUID jobId, int node) {
        return jdbi.withHandle(h -> h.createQuery("""
                SELECT t.job_id, j.number, t.node_index, t.status, t.lease, t.lease_until, t.carried_from
                FROM gantry.job_task t JOIN gantry.job j ON j.id = t.job_id
                WHERE t.job_id = :jobId AND t.node_index = :node """).bind("jobId", jobId).bind("node", node)
                .map((rs, ctx) -> new Task(rs.getObject(1, UUID.class), rs.getLong(2), rs.getInt(3),
                        rs.getString(4), rs.getObject(5, UUID.class),
                                instant(rs.getObject(6, OffsetDateTime.class)), rs.getObject(7, UUID.class)))
                .findOne().orElse(null));
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
