package dev.gantry.server.orchestrator;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import dev.gantry.server.http.Json;
import dev.gantry.server.run.JobStatus;
import dev.gantry.server.run.TaskStatus;
import dev.gantry.server.run.WorkflowStatus;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.mapper.RowMapper;
import org.jdbi.v3.core.statement.StatementContext;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.config.RegisterRowMapper;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

/** The statements the orchestrator runs on workflows, jobs and tasks; all inside the caller's transaction. */
@RegisterRowMapper(OrchestratorDao.WorkflowMapper.class)
@RegisterRowMapper(OrchestratorDao.JobMapper.class)
interface OrchestratorDao {

    /** A workflow row, locked for the rest of the transaction. */
    record Workflow(UUID id, UUID pipelineId, UUID projectId, String name, WorkflowStatus status) {
    }

    /**
     * Locks the workflow: everything that changes a workflow's jobs as a whole (advance, cancel, rerun, approve)
     * takes this lock first, so they see each other's results. Agents finishing tasks do not take it; their advance
     * message comes after their commit.
     */
    @SqlQuery("""
            SELECT w.id, w.pipeline_id, p.project_id, w.name, w.status
            FROM gantry.workflow w
            JOIN gantry.pipeline p ON p.id = w.pipeline_id
            WHERE w.id = :id
            FOR UPDATE OF w
            """)
    Optional<Workflow> lockWorkflow(UUID id);

    @SqlQuery("""
            SELECT id, name, attempt, type, status, requires::text AS requires
            FROM gantry.job
            WHERE workflow_id = :workflowId
            ORDER BY number
            """)
    List<Advance.Job> jobs(UUID workflowId);

    /** Moves a blocked job on; 1 if it was still blocked. */
    @SqlUpdate("""
            UPDATE gantry.job
            SET status = :to,
                queued_at = CASE WHEN :to = 'queued' THEN CAST(:now AS timestamptz) END,
                stopped_at = CASE WHEN :to IN ('success', 'not_run') THEN CAST(:now AS timestamptz) END
            WHERE id = :id AND status = 'blocked'
            """)
    int unblock(UUID id, String to, OffsetDateTime now);

    /** One queued task per parallel node of the job. */
    @SqlUpdate("""
            INSERT INTO gantry.job_task (job_id, node_index, status, queued_at)
            SELECT j.id, n, 'queued', :now
            FROM gantry.job j, generate_series(0, j.parallelism - 1) AS n
            WHERE j.id = :jobId
            """)
    int queueTasks(UUID jobId, OffsetDateTime now);

    /**
     * The tasks of {@code retryId}, a retry of {@code lostId}: a queued one for each node that did not succeed, and
     * for each node that did, one that is already {@code success}, carried from the attempt that ran it (its times
     * and agent, and {@code carried_from} naming the job whose results it shows). A node that finished is never run,
     * nor charged, twice.
     */
    @SqlUpdate("""
            INSERT INTO gantry.job_task (job_id, node_index, status, agent_id, queued_at, started_at, stopped_at,
                                         carried_from)
            SELECT :retryId, node_index, CASE WHEN ran THEN 'success' ELSE 'queued' END,
                   CASE WHEN ran THEN agent_id END, CASE WHEN ran THEN queued_at ELSE :now END,
                   CASE WHEN ran THEN started_at END, CASE WHEN ran THEN stopped_at END,
                   CASE WHEN ran THEN coalesce(carried_from, job_id) END
            FROM gantry.job_task, LATERAL (SELECT status = 'success' AS ran) r
            WHERE job_id = :lostId
            """)
    int queueRetryTasks(UUID retryId, UUID lostId, OffsetDateTime now);

    /** Takes the project's next job number. */
    @SqlQuery("""
            UPDATE gantry.project SET last_job_number = last_job_number + 1 WHERE id = :projectId
            RETURNING last_job_number
            """)
    long claimJobNumber(UUID projectId);

    /** A copy of job {@code from} under a new id and number, with {@code attempt} and {@code status}. */
    @SqlUpdate("""
            INSERT INTO gantry.job (id, workflow_id, project_id, number, name, attempt, type, status, requires,
                                    resource_class, cpu, memory_mb, executor, parallelism, spec, copied_from,
                                    created_at, queued_at, started_at, stopped_at)
            SELECT :id, :workflowId, project_id, :number, name, :attempt, type, :status, requires,
                   resource_class, cpu, memory_mb, executor, parallelism, spec,
                   CASE WHEN :carried THEN coalesce(copied_from, id) END,
                   :now,
                   CASE WHEN :status = 'queued' THEN CAST(:now AS timestamptz) END,
                   CASE WHEN :carried THEN started_at END,
                   CASE WHEN :carried THEN stopped_at END
            FROM gantry.job
            WHERE id = :from
            """)
    int copyJob(UUID id, UUID from, UUID workflowId, long number, int attempt, String status, boolean carried,
                OffsetDateTime now);

    @SqlUpdate("""
            UPDATE gantry.workflow
            SET status = :status, stopped_at = CASE WHEN :terminal THEN CAST(:now AS timestamptz) END
            WHERE id = :id
            """)
    int setStatus(UUID id, String status, boolean terminal, OffsetDateTime now);

    @SqlUpdate("""
            INSERT INTO gantry.workflow (id, pipeline_id, name, status, rerun_of, created_at, started_by)
            VALUES (:id, :pipelineId, :name, 'running', :rerunOf, :now, :startedBy)
            """)
    int insertRerun(UUID id, UUID pipelineId, String name, UUID rerunOf, OffsetDateTime now, String startedBy);

    /** Records who canceled the workflow (a login), for the API's {@code canceled_by}. */
    @SqlUpdate("UPDATE gantry.workflow SET canceled_by = :actor WHERE id = :id")
    int setWorkflowCanceledBy(UUID id, String actor);

    /** Records who canceled the job (a login) if the cancel took: it is canceled now or told to stop. */
    @SqlUpdate("""
            UPDATE gantry.job SET canceled_by = :actor
            WHERE id = :jobId AND canceled_by IS NULL AND (status = 'canceled' OR cancel_requested)
            """)
    int setJobCanceledBy(UUID jobId, String actor);

    /** The job numbered {@code number} in the project, as its id and its workflow's. */
    @SqlQuery("""
            SELECT j.id, j.workflow_id
            FROM gantry.job j
            JOIN gantry.project p ON p.id = j.project_id
            WHERE p.organization = :organization AND p.name = :name AND j.number = :number
            """)
    @RegisterConstructorMapper(NumberedJob.class)
    Optional<NumberedJob> findJob(String organization, String name, long number);

    /** A job found by its number. */
    record NumberedJob(UUID id, UUID workflowId) {
    }

    /** Cancels the workflow's jobs that have not started, or only {@code jobId} if not null; the jobs canceled. */
    @SqlQuery("""
            UPDATE gantry.job SET status = 'canceled', stopped_at = :now
            WHERE workflow_id = :workflowId AND status IN ('blocked', 'queued', 'on_hold')
              AND (CAST(:jobId AS uuid) IS NULL OR id = CAST(:jobId AS uuid))
            RETURNING id
            """)
    List<UUID> cancelWaitingJobs(UUID workflowId, UUID jobId, OffsetDateTime now);

    /** Tells running jobs (or only {@code jobId}) to stop: their agents hear it on the next heartbeat. */
    @SqlUpdate("""
            UPDATE gantry.job SET cancel_requested = true
            WHERE workflow_id = :workflowId AND status = 'running' AND (CAST(:jobId AS uuid) IS NULL OR id = CAST(:jobId AS uuid))
            """)
    int requestCancelOfRunningJobs(UUID workflowId, UUID jobId);

    /** Withdraws the tasks no agent has claimed yet, of every job of the workflow or only of {@code jobId}. */
    @SqlUpdate("""
            UPDATE gantry.job_task t SET status = 'canceled', stopped_at = :now
            FROM gantry.job j
            WHERE j.id = t.job_id AND j.workflow_id = :workflowId AND t.status = 'queued'
              AND (CAST(:jobId AS uuid) IS NULL OR j.id = CAST(:jobId AS uuid))
            """)
    int cancelQueuedTasks(UUID workflowId, UUID jobId, OffsetDateTime now);

    /** A task of a running job. */
    record TaskOfRunningJob(UUID jobId, String status) {
        TaskStatus taskStatus() {
            return TaskStatus.ofWord(status);
        }
    }

    @SqlQuery("""
            SELECT t.job_id, t.status
            FROM gantry.job_task t
            JOIN gantry.job j ON j.id = t.job_id
            WHERE j.workflow_id = :workflowId AND j.status = 'running'
              AND (CAST(:jobId AS uuid) IS NULL OR j.id = CAST(:jobId AS uuid))
            ORDER BY t.job_id, t.node_index
            """)
    @RegisterConstructorMapper(TaskOfRunningJob.class)
    List<TaskOfRunningJob> tasksOfRunningJobs(UUID workflowId, UUID jobId);

    /** Gives a running job whose tasks have all ended their outcome; 1 if it was running. */
    @SqlUpdate("""
            UPDATE gantry.job SET status = :outcome, stopped_at = :now
            WHERE id = :jobId AND status = 'running'
            """)
    int finishRunningJob(UUID jobId, String outcome, OffsetDateTime now);

    @SqlQuery("SELECT auto_cancel_redundant FROM gantry.project WHERE id = :projectId")
    boolean autoCancels(UUID projectId);

    /** Approves an approval job on hold; 1 if it was. */
    @SqlUpdate("""
            UPDATE gantry.job SET status = 'success', started_at = :now, stopped_at = :now, approved_by = :actor
            WHERE id = :jobId AND workflow_id = :workflowId AND type = 'approval' AND status = 'on_hold'
            """)
    int approve(UUID workflowId, UUID jobId, OffsetDateTime now, String actor);

    @SqlQuery("SELECT status FROM gantry.job WHERE id = :jobId AND workflow_id = :workflowId AND type = 'approval'")
    Optional<String> approvalStatus(UUID workflowId, UUID jobId);

    /**
     * The running workflows of the project's older pipelines on {@code branch}: what a new pipeline on that branch
     * makes redundant.
     */
    @SqlQuery("""
            SELECT w.id
            FROM gantry.workflow w
            JOIN gantry.pipeline p ON p.id = w.pipeline_id
            WHERE p.project_id = :projectId AND p.branch = :branch AND p.number < :number
              AND w.status IN ('running', 'on_hold', 'failing')
            ORDER BY w.id
            """)
    List<UUID> redundantWorkflows(UUID projectId, String branch, long number);

    final class WorkflowMapper implements RowMapper<Workflow> {
        @Override
        public Workflow map(ResultSet rs, StatementContext ctx) throws SQLException {
            return new Workflow(rs.getObject("id", UUID.class), rs.getObject("pipeline_id", UUID.class),
                    rs.getObject("project_id", UUID.class), rs.getString("name"),
                    WorkflowStatus.ofWord(rs.getString("status")));
        }
    }

    final class JobMapper implements RowMapper<Advance.Job> {
        private static final TypeReference<LinkedHashMap<String, List<String>>> REQUIRES = new TypeReference<>() {
        };

        @Override
        public Advance.Job map(ResultSet rs, StatementContext ctx) throws SQLException {
            return new Advance.Job(rs.getObject("id", UUID.class), rs.getString("name"), rs.getInt("attempt"),
                    rs.getString("type"), JobStatus.ofWord(rs.getString("status")), requires(rs.getString("requires")));
        }

        private static Map<String, List<String>> requires(String json) {
            try {
                return Json.MAPPER.readValue(json, REQUIRES);
            } catch (JsonProcessingException e) {
                throw new IllegalStateException("gantry.job.requires holds JSON that is not {name: [status…]}", e);
            }
        }
    }
}
