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
    @SqlBatch("""
            INSERT INTO gantry.pipeline_orb (pipeline_id, reference, version) VALUES (:pipelineId, :reference, :version)
            ON CONFLICT DO NOTHING
            """)
    void insertOrbs(UUID pipelineId, List<String> reference, List<String> version);

    /**
     * Compare-and-set from {@code from} to {@code to} ({@code created} or {@code setup}): 1 when this call moved the
     * pipeline, 0 when another delivery (or continuation) already did.
     */
    @SqlUpdate("""
            UPDATE gantry.pipeline SET state = :to, revision = COALESCE(:revision, revision), updated_at = :now
            WHERE id = :id AND state = :from
            """)
    int moveState(UUID id, String from, String to, String revision, OffsetDateTime now);

    /** Stores the config as read and as compiled; a setup config goes in the setup columns. */
    @SqlUpdate("""
            INSERT INTO gantry.pipeline_config AS c (pipeline_id, source, compiled, setup_source, setup_compiled)
            VALUES (:id, CASE WHEN :setup THEN NULL ELSE :source END, CASE WHEN :setup THEN NULL ELSE :compiled END,
                    CASE WHEN :setup THEN :source END, CASE WHEN :setup THEN :compiled END)
            ON CONFLICT (pipeline_id) DO UPDATE SET source = EXCLUDED.source, compiled = EXCLUDED.compiled
            """)
    void storeConfig(UUID id, boolean setup, String source, String compiled);

    /** Gives the setup pipeline its continuation key. */
    @SqlUpdate("""
            INSERT INTO gantry.pipeline_continuation (pipeline_id, key_hash, key, created_at)
            VALUES (:id, :keyHash, :key, :now)
            """)
    void insertContinuation(UUID id, byte[] keyHash, String key, OffsetDateTime now);

    /** The branch (null for a tag) and number of a pipeline, which redundant-workflow cancels go by. */
    record BranchAndNumber(String branch, long number) {
    }

    @SqlQuery("SELECT branch, number FROM gantry.pipeline WHERE id = :id")
    @RegisterConstructorMapper(BranchAndNumber.class)
    BranchAndNumber branchAndNumber(UUID id);

    /** Remembers the repository's default branch for the insights (a write only when it changed). */
    @SqlUpdate("""
            UPDATE gantry.project SET default_branch = :branch
            WHERE id = :projectId AND default_branch IS DISTINCT FROM :branch
            """)
    int rememberDefaultBranch(UUID projectId, String branch);

    /**
     * Compare-and-set from {@code from} to errored, with why; keeps the stored revision when {@code revision} is null
     * (the failure came before the ref was resolved).
     */
    @SqlUpdate("""
            UPDATE gantry.pipeline
            SET state = 'errored', errors = CAST(:errors AS jsonb), revision = COALESCE(:revision, revision),
                updated_at = :now
            WHERE id = :id AND state = :from
            """)
    int markErrored(UUID id, String from, String revision, String errors, OffsetDateTime now);

    /**
     * Gives a pending pipeline triggered without branch or tag the repository's default branch; 0 when it has a ref
     * already (a redelivery that resolved it before) or is no longer pending.
     */
    @SqlUpdate("""
            UPDATE gantry.pipeline SET branch = :branch
            WHERE id = :id AND state = 'pending' AND branch IS NULL AND tag IS NULL
            """)
    int resolveDefaultBranch(UUID id, String branch);

    /** Uses up the pipeline's continuation key; 1 when this call did. */
    @SqlUpdate("""
            UPDATE gantry.pipeline_continuation SET continued_at = :now
            WHERE pipeline_id = :id AND continued_at IS NULL
            """)
    int markContinued(UUID id, OffsetDateTime now);

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
