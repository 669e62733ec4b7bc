package dev.gantry.server.agent;

import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.customizer.BindList;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

/** Every statement on {@code gantry.workspace_layer}, and the job graph that decides which layers a job sees. */
@RegisterConstructorMapper(WorkspaceDao.Layer.class)
@RegisterConstructorMapper(WorkspaceDao.JobNode.class)
interface WorkspaceDao {
    /** A layer; {@code expiredAt} is when retention deleted its archive, null while it has one. */
    record Layer(UUID id, UUID workflowId, long size, OffsetDateTime createdAt, OffsetDateTime expiredAt) {
    }

    /** A job of a workflow as the requires graph sees it; {@code requires} is the jsonb object as text. */
    record JobNode(UUID id, String name, int attempt, String requires, UUID copiedFrom) {
    }

    @SqlUpdate("""
            INSERT INTO gantry.workspace_layer (id, workflow_id, job_id, node_index, size, created_at)
            VALUES (:id, :workflowId, :jobId, :nodeIndex, :size, :now)
            """)
    void insert(UUID id, UUID workflowId, UUID jobId, int nodeIndex, long size, OffsetDateTime now);

    @SqlQuery("SELECT id, workflow_id, size, created_at, expired_at FROM gantry.workspace_layer WHERE id = :id")
    Optional<Layer> find(UUID id);

    @SqlQuery("""
            SELECT id, name, attempt, requires::text AS requires, copied_from
            FROM gantry.job
            WHERE workflow_id = (SELECT workflow_id FROM gantry.job WHERE id = :jobId)
            """)
    List<JobNode> jobsOfWorkflowOf(UUID jobId);

    @SqlQuery("SELECT copied_from FROM gantry.job WHERE id = :jobId")
    Optional<UUID> copiedFrom(UUID jobId);

    /**
     * The layers the jobs persisted, oldest first, with those of the nodes a retry carried over from the attempt that
     * ran them ({@code gantry.result_nodes}); {@code jobIds} must not be empty.
     */
    @SqlQuery("""
            SELECT id, workflow_id, size, created_at, expired_at
            FROM gantry.workspace_layer
            WHERE (job_id, node_index) IN (SELECT r.job_id, r.node_index
                                           FROM unnest(ARRAY[<jobIds>]::uuid[]) AS j(id),
                                                gantry.result_nodes(j.id) AS r)
            ORDER BY created_at, id
            """)
    List<Layer> layersOf(@BindList("jobIds") List<UUID> jobIds);
}
