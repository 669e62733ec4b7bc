package dev.gantry.server.fleet;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

/** What the scheduler's snapshot is read from: queued tasks, live agents and what they run. */
interface FleetDao {
    /** A queued task with what placement needs of its job; its executor's type and image may be null. */
    record QueuedTask(UUID jobId, int nodeIndex, Instant queuedAt, String resourceClass, int cpu, int memoryMb,
                      String executorType, String image, String organization, UUID projectId, String name) {
    }

    /** An agent: its id, name, what it offers ({@code diskGb} null when it did not say) and its pool. */
    record AgentRow(UUID id, String name, int cpu, int memoryMb, Integer diskGb, String pool) {
    }

    /** A running task, on {@code agentId}, with what its job holds. */
    record RunningTask(UUID jobId, int nodeIndex, UUID agentId, String resourceClass, int cpu, int memoryMb,
                       String organization, Instant startedAt, UUID projectId, String name) {
    }

    /** An operator's pause of dispatch to a pool. */
    record PoolPause(String pool, Instant pausedAt, String reason) {
    }

    @SqlQuery("SELECT pool, paused_at, reason FROM gantry.pool_pause ORDER BY pool")
    @RegisterConstructorMapper(PoolPause.class)
    List<PoolPause> pausedPools();

    @SqlUpdate("""
            INSERT INTO gantry.pool_pause (pool, paused_at, reason) VALUES (:pool, :now, :reason)
            ON CONFLICT (pool) DO NOTHING
            """)
    void pause(String pool, OffsetDateTime now, String reason);

    @SqlUpdate("DELETE FROM gantry.pool_pause WHERE pool = :pool")
    void resume(String pool);

    /** How long a job of a project, by name, took on its recent successful runs (median of the last ten). */
    record History(UUID projectId, String name, Long medianMs) {
    }

    /**
     * The queued tasks, oldest first and, among those queued in the same instant (the jobs one advance unblocks),
     * by job number and node: {@link FleetSnapshots} keeps that order when it breaks the ties.
     */
    // The same filter as a claim's: a job being canceled or already settled is not waiting for an agent.
    @SqlQuery("""
            SELECT t.job_id, t.node_index, t.queued_at, j.resource_class, j.cpu, j.memory_mb,
                   j.executor ->> 'type' AS executor_type, j.executor ->> 'image' AS image, p.organization,
                   j.project_id, j.name
            FROM gantry.job_task t
            JOIN gantry.job j ON j.id = t.job_id
            JOIN gantry.project p ON p.id = j.project_id
            WHERE t.status = 'queued'
              AND j.status IN ('queued', 'running')
              AND NOT j.cancel_requested
            ORDER BY t.queued_at, p.organization, p.name, j.number, t.node_index
            """)
    @RegisterConstructorMapper(QueuedTask.class)
    List<QueuedTask> queuedTasks();

    @SqlQuery("""
            SELECT id, name, cpu, memory_mb, disk_gb, pool
            FROM gantry.agent
            WHERE last_seen_at > :since OR id = ANY(:claiming)
            """)
    @RegisterConstructorMapper(AgentRow.class)
    List<AgentRow> agents(OffsetDateTime since, UUID[] claiming);

    @SqlQuery("""
            SELECT t.job_id, t.node_index, t.agent_id, j.resource_class, j.cpu, j.memory_mb, p.organization,
                   t.started_at, j.project_id, j.name
            FROM gantry.job_task t
            JOIN gantry.job j ON j.id = t.job_id
            JOIN gantry.project p ON p.id = j.project_id
            WHERE t.status = 'running'
            """)
    @RegisterConstructorMapper(RunningTask.class)
    List<RunningTask> runningTasks();

    @SqlQuery("""
            SELECT k.project_id, k.name,
                   (SELECT (percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM r.ran) * 1000))::bigint
                    FROM (SELECT j.stopped_at - j.started_at AS ran
                          FROM gantry.job j
                          WHERE j.project_id = k.project_id AND j.name = k.name AND j.status = 'success'
                            AND j.started_at IS NOT NULL
                          ORDER BY j.stopped_at DESC
                          LIMIT 10) r) AS median_ms
            FROM unnest(:projectIds, :names) AS k(project_id, name)
            """)
    @RegisterConstructorMapper(History.class)
    List<History> history(UUID[] projectIds, String[] names);
}
