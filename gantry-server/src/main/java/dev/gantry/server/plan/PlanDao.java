package dev.gantry.server.plan;

import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.customizer.BindMethods;
import org.jdbi.v3.sqlobject.statement.SqlBatch;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

/**
 * The planner's statements: the compare-and-set that settles a pending pipeline, and the inserts of its workflows
 * and jobs. Attach it to the handle of the transaction that stores a plan.
 */
interface PlanDao {
    /** Records the exact orb version each reference of the pipeline's config compiled with. */
    @SqlBatch("INSERT INTO gantry.pipeline_orb (pipeline_id, reference, version) VALUES (:pipelineId, :reference, :version)")
    void insertOrbs(UUID pipelineId, List<String> reference, List<String> version);

    /** Compare-and-set: 1 when this call moved the pipeline from pending, 0 when another delivery already did. */
    @SqlUpdate("""
            UPDATE gantry.pipeline SET state = 'created', revision = :revision, updated_at = :now
            WHERE id = :id AND state = 'pending'
            """)
    int markCreated(UUID id, String revision, OffsetDateTime now);

    /** The branch (null for a tag) and number of a pipeline, which redundant-workflow cancels go by. */
    record BranchAndNumber(String branch, long number) {
    }

    @SqlQuery("SELECT branch, number FROM gantry.pipeline WHERE id = :id")
    @RegisterConstructorMapper(BranchAndNumber.class)
    BranchAndNumber branchAndNumber(UUID id);

    /**
     * Compare-and-set to errored, with why; keeps the stored revision when {@code revision} is null (the failure came
     * before the ref was resolved).
     */
    @SqlUpdate("""
            UPDATE gantry.pipeline
            SET state = 'errored', errors = CAST(:errors AS jsonb), revision = COALESCE(:revision, revision),
                updated_at = :now
            WHERE id = :id AND state = 'pending'
            """)
    int markErrored(UUID id, String revision, String errors, OffsetDateTime now);

    /**
     * Takes {@code count} job numbers of the project, returning the last one: the numbers are
     * {@code last - count + 1 … last}. The row stays locked until the transaction ends, so numbers have no gaps.
     */
    @SqlQuery("""
            UPDATE gantry.project SET last_job_number = last_job_number + :count
            WHERE id = :id
            RETURNING last_job_number
            """)
    Optional<Long> claimJobNumbers(UUID id, int count);

    @SqlUpdate("""
            INSERT INTO gantry.workflow (id, pipeline_id, name, status, created_at)
            VALUES (:id, :pipelineId, :name, :status, :createdAt)
            """)
    void insertWorkflow(UUID id, UUID pipelineId, String name, String status, OffsetDateTime createdAt);

    @SqlBatch("""
            INSERT INTO gantry.job (id, workflow_id, project_id, number, name, type, status, requires, resource_class,
                                    cpu, memory_mb, executor, parallelism, spec, created_at)
            VALUES (:id, :workflowId, :projectId, :number, :name, :type, :status, CAST(:requires AS jsonb),
                    :resourceClass, :cpu, :memoryMb, CAST(:executor AS jsonb), :parallelism, CAST(:spec AS jsonb),
                    :createdAt)
            """)
    void insertJobs(@BindMethods List<JobRow> jobs);
}
