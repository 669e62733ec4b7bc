package dev.gantry.server.agent;

import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

/**
 * Every statement of the agent protocol on {@code gantry.job_task}, and the job-status changes its tasks cause. Every
 * change is a compare-and-set: callers check the row count. Lock order, to keep concurrent calls from deadlocking: a
 * transaction that ends a task locks the job row ({@link #lockJob}) before the task, and a completion, which then
 * advances the workflow, the workflow row before both ({@link #lockWorkflowOfJob}), as cancel and approve do.
 */
@RegisterConstructorMapper(TaskDao.Leased.class)
@RegisterConstructorMapper(TaskDao.TaskState.class)
@RegisterConstructorMapper(TaskDao.Heartbeat.class)
@RegisterConstructorMapper(TaskKey.class)
interface TaskDao {
    /** A task that a lease-holding agent may act on, and what its uploads need. */
    record Leased(UUID jobId, int nodeIndex, UUID workflowId, UUID projectId, UUID agentId) {
    }

    /** What {@link #state} reads. */
    record TaskState(String status, UUID lease, boolean givenUp, String supersededStatus) {
    }

    /** What {@link #heartbeat} returns. */
    record Heartbeat(boolean cancelRequested, UUID agentId) {
    }

    /** queued → running with a new lease; 1 when it moved. */
    @SqlUpdate("""
            UPDATE gantry.job_task
            SET status = 'running', agent_id = :agentId, lease = :lease, lease_until = :leaseUntil, started_at = :now
            WHERE job_id = :jobId AND node_index = :nodeIndex AND status = 'queued'
            """)
    int start(UUID jobId, int nodeIndex, UUID agentId, UUID lease, OffsetDateTime leaseUntil, OffsetDateTime now);

    /** The job's first task to start moves it to running; 0 when it already runs. */
    @SqlUpdate("""
            UPDATE gantry.job SET status = 'running', started_at = :now
            WHERE id = :jobId AND status = 'queued'
            """)
    int startJob(UUID jobId, OffsetDateTime now);

    /** Renews the lease of a running task held with {@code lease}; empty when it is not (anymore). */
    @SqlQuery("""
            UPDATE gantry.job_task t SET lease_until = :leaseUntil, accepted_at = coalesce(t.accepted_at, :now)
            FROM gantry.job j
            WHERE t.job_id = :jobId AND t.node_index = :nodeIndex AND t.status = 'running' AND t.lease = :lease
              AND j.id = t.job_id
            RETURNING j.cancel_requested, t.agent_id
            """)
    Optional<Heartbeat> heartbeat(UUID jobId, int nodeIndex, UUID lease, OffsetDateTime leaseUntil,
                                  OffsetDateTime now);

    /**
     * The running task held with {@code lease}, locked until the transaction ends, so that it cannot end while the
     * caller records what the agent sent, and calls about one task take turns (test results number their rows);
     * empty when the lease is not the task's current one.
     */
    @SqlQuery("""
            SELECT t.job_id, t.node_index, j.workflow_id, j.project_id, t.agent_id
            FROM gantry.job_task t
            JOIN gantry.job j ON j.id = t.job_id
            WHERE t.job_id = :jobId AND t.node_index = :nodeIndex AND t.status = 'running' AND t.lease = :lease
            FOR NO KEY UPDATE OF t
            """)
    Optional<Leased> leased(UUID jobId, int nodeIndex, UUID lease);

    /**
     * Marks a leased task accepted and renews its lease to at least {@code leaseUntil}, if it is not accepted yet;
     * touches no row once it is (heartbeats renew from then on).
     */
    @SqlUpdate("""
            UPDATE gantry.job_task SET accepted_at = :now, lease_until = greatest(lease_until, :leaseUntil)
            WHERE job_id = :jobId AND node_index = :nodeIndex AND accepted_at IS NULL
            """)
    int accept(UUID jobId, int nodeIndex, OffsetDateTime leaseUntil, OffsetDateTime now);

    /**
     * Locks the job row (see the lock order above); empty when there is no such job. NO KEY UPDATE, not UPDATE: it
     * serialises task ends but lets inserts that reference the job (steps, tests) take their key-share lock.
     */
    @SqlQuery("SELECT workflow_id FROM gantry.job WHERE id = :jobId FOR NO KEY UPDATE")
    Optional<UUID> lockJob(UUID jobId);

    /** Locks the workflow of the job, as the orchestrator locks it; empty when there is no such job. */
    @SqlQuery("""
            SELECT w.id FROM gantry.workflow w JOIN gantry.job j ON j.workflow_id = w.id
            WHERE j.id = :jobId
            FOR UPDATE OF w
            """)
    Optional<UUID> lockWorkflowOfJob(UUID jobId);

    /**
     * running → {@code status} for the holder of {@code lease}; 1 when it moved. A completion proves the agent had
     * the task, as any call with the lease does: it is accepted by then, if no call before said so.
     */
    @SqlUpdate("""
            UPDATE gantry.job_task SET status = :status, stopped_at = :now, accepted_at = coalesce(accepted_at, :now)
            WHERE job_id = :jobId AND node_index = :nodeIndex AND status = 'running' AND lease = :lease
            """)
    int finish(UUID jobId, int nodeIndex, UUID lease, String status, OffsetDateTime now);

    @SqlQuery("""
            SELECT status, lease, given_up_at IS NOT NULL AS given_up, superseded_status FROM gantry.job_task
            WHERE job_id = :jobId AND node_index = :nodeIndex
            """)
    Optional<TaskState> state(UUID jobId, int nodeIndex);

    @SqlQuery("SELECT status FROM gantry.job_task WHERE job_id = :jobId ORDER BY node_index")
    List<String> statuses(UUID jobId);

    /** A job whose tasks all ended takes its outcome, unless someone (a cancel) ended it already; 1 when it moved. */
    @SqlUpdate("""
            UPDATE gantry.job SET status = :status, stopped_at = :now
            WHERE id = :jobId AND status IN ('queued', 'running')
            """)
    int settleJob(UUID jobId, String status, OffsetDateTime now);

    /**
     * infrastructure_fail → {@code status} for the holder of {@code lease}: a completion that came after the sweeper
     * gave the task up; 1 when it moved.
     */
    @SqlUpdate("""
            UPDATE gantry.job_task SET status = :status, stopped_at = :now
            WHERE job_id = :jobId AND node_index = :nodeIndex AND status = 'infrastructure_fail' AND lease = :lease
              AND given_up_at IS NOT NULL
            """)
    int finishLate(UUID jobId, int nodeIndex, UUID lease, String status, OffsetDateTime now);

    /** Keeps what a late completion reported without changing the task's outcome. */
    @SqlUpdate("""
            UPDATE gantry.job_task SET superseded_status = :status, superseded_at = :now
            WHERE job_id = :jobId AND node_index = :nodeIndex AND lease = :lease
            """)
    int supersede(UUID jobId, int nodeIndex, UUID lease, String status, OffsetDateTime now);

    /** The job the sweeper settled as infrastructure_fail takes the outcome its tasks have now; 1 when it moved. */
    @SqlUpdate("""
            UPDATE gantry.job SET status = :status, stopped_at = :now
            WHERE id = :jobId AND status = 'infrastructure_fail'
            """)
    int resettleJob(UUID jobId, String status, OffsetDateTime now);

    /** The later attempts of the job (its retry), in its workflow under its name. */
    @SqlQuery("""
            SELECT r.id FROM gantry.job j
            JOIN gantry.job r ON r.workflow_id = j.workflow_id AND r.name = j.name AND r.attempt > j.attempt
            WHERE j.id = :jobId
            """)
    List<UUID> retries(UUID jobId);

    /**
     * The statuses of the job's tasks to run (not those a retry carried over, which ran in an earlier attempt),
     * locked: a claim skips locked tasks, and one that started a task before is waited for, so what this answers
     * stays true until the transaction ends.
     */
    @SqlQuery("SELECT status FROM gantry.job_task WHERE job_id = :jobId AND carried_from IS NULL FOR UPDATE")
    List<String> lockTasks(UUID jobId);

    /** Removes a retry that never started, with its tasks (the caller holds them locked); 1 when it was removed. */
    @SqlUpdate("""
            WITH tasks AS (DELETE FROM gantry.job_task WHERE job_id = :jobId)
            DELETE FROM gantry.job WHERE id = :jobId AND status = 'queued'
            """)
    int withdrawRetry(UUID jobId);

    /** Whether a node of the job other than {@code nodeIndex} was given up as lost. */
    @SqlQuery("""
            SELECT EXISTS (SELECT 1 FROM gantry.job_task WHERE job_id = :jobId AND node_index <> :nodeIndex
                                                           AND status = 'infrastructure_fail')
            """)
    boolean otherNodesLost(UUID jobId, int nodeIndex);

    @SqlQuery("SELECT w.status FROM gantry.workflow w JOIN gantry.job j ON j.workflow_id = w.id WHERE j.id = :jobId")
    String workflowStatus(UUID jobId);

    /** Extends every running task's lease to at least {@code until}; returns how many there are. */
    @SqlUpdate("""
            UPDATE gantry.job_task SET lease_until = greatest(lease_until, :until)
            WHERE status = 'running'
            """)
    int renewAllRunning(OffsetDateTime until);

    /** A running task whose lease ran out, and whether its agent had accepted it. */
    record Expired(UUID jobId, int nodeIndex, boolean accepted) {
        TaskKey key() {
            return new TaskKey(jobId, nodeIndex);
        }
    }

    /** Running tasks whose lease ran out before {@code now}, longest expired first. */
    @SqlQuery("""
            SELECT job_id, node_index, accepted_at IS NOT NULL AS accepted
            FROM gantry.job_task
            WHERE status = 'running' AND lease_until < :now
            ORDER BY lease_until
            LIMIT :limit
            """)
    @RegisterConstructorMapper(Expired.class)
    List<Expired> expired(OffsetDateTime now, int limit);

    /**
     * running → queued for a task its agent never accepted, keeping its place in the queue; 1 when it moved (a late
     * acceptance wins).
     */
    @SqlUpdate("""
            UPDATE gantry.job_task
            SET status = 'queued', agent_id = NULL, lease = NULL, lease_until = NULL, started_at = NULL
            WHERE job_id = :jobId AND node_index = :nodeIndex AND status = 'running' AND accepted_at IS NULL
              AND lease_until < :now
            """)
    int requeue(UUID jobId, int nodeIndex, OffsetDateTime now);

    /** Whether someone canceled the job while it ran; false when there is no such job. */
    @SqlQuery("SELECT coalesce(bool_or(cancel_requested), false) FROM gantry.job WHERE id = :jobId")
    boolean cancelRequested(UUID jobId);

    /**
     * running → canceled for a task its agent never accepted, of a job being canceled; 1 when it moved (a late
     * acceptance wins, as for {@link #requeue}).
     */
    @SqlUpdate("""
            UPDATE gantry.job_task SET status = 'canceled', stopped_at = :now
            WHERE job_id = :jobId AND node_index = :nodeIndex AND status = 'running' AND accepted_at IS NULL
              AND lease_until < :now
            """)
    int withdraw(UUID jobId, int nodeIndex, OffsetDateTime now);

    /** A running job none of whose tasks has started (or ended) is queued again. */
    @SqlUpdate("""
            UPDATE gantry.job SET status = 'queued', started_at = NULL
            WHERE id = :jobId AND status = 'running'
              AND NOT EXISTS (SELECT 1 FROM gantry.job_task WHERE job_id = :jobId AND status <> 'queued')
            """)
    int requeueJob(UUID jobId);

    /** running → infrastructure_fail, if the lease is still expired (a heartbeat may have come meanwhile). */
    @SqlUpdate("""
            UPDATE gantry.job_task SET status = 'infrastructure_fail', stopped_at = :now, given_up_at = :now
            WHERE job_id = :jobId AND node_index = :nodeIndex AND status = 'running' AND lease_until < :now
            """)
    int markLost(UUID jobId, int nodeIndex, OffsetDateTime now);
}
