package dev.gantry.server.agent;

import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.statement.SqlQuery;

/** Reads what an assignment tells the agent about a job, its workflow, pipeline and project, in one query. */
@RegisterConstructorMapper(AssignmentDao.Row.class)
interface AssignmentDao {
    /** The columns {@link #find} reads; JSON columns as text. */
    record Row(UUID jobId, long jobNumber, String jobName, int attempt, int parallelism, String resourceClass,
               int cpu, int memoryMb, String executor, String spec, UUID pipelineId, long pipelineNumber, String branch, String tag,
               String revision, String parameters, UUID workflowId, String workflowName, UUID projectId,
               String organization, String projectName, String vcsUrl, String reviewId, String reviewUrl,
               String continuationKey, String actor) {
    }

    @SqlQuery("""
            SELECT j.id AS job_id, j.number AS job_number, j.name AS job_name, j.attempt, j.parallelism,
                   j.resource_class, j.cpu, j.memory_mb, j.executor::text AS executor, j.spec::text AS spec,
                   p.id AS pipeline_id, p.number AS pipeline_number, p.branch, p.tag, p.revision,
                   p.parameters::text AS parameters,
                   w.id AS workflow_id, w.name AS workflow_name,
                   pr.id AS project_id, pr.organization, pr.name AS project_name, pr.vcs_url,
                   p.review_id, p.review_url, c.key AS continuation_key, p.trigger_actor AS actor
            FROM gantry.job j
            JOIN gantry.workflow w ON w.id = j.workflow_id
            JOIN gantry.pipeline p ON p.id = w.pipeline_id
            LEFT JOIN gantry.pipeline_continuation c ON c.pipeline_id = p.id AND c.continued_at IS NULL
            JOIN gantry.project pr ON pr.id = j.project_id
            WHERE j.id = :jobId
            """)
    Optional<Row> find(UUID jobId);
}
