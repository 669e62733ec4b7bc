package dev.gantry.server.workflow;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import dev.gantry.server.http.Json;
import dev.gantry.server.project.ProjectSlug;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.mapper.RowMapper;
import org.jdbi.v3.core.statement.StatementContext;
import org.jdbi.v3.sqlobject.config.KeyColumn;
import org.jdbi.v3.sqlobject.config.RegisterRowMapper;
import org.jdbi.v3.sqlobject.config.ValueColumn;
import org.jdbi.v3.sqlobject.statement.SqlQuery;

/**
 * The read side of {@code gantry.workflow} and its jobs. A pipeline's workflows come newest first (reruns before
 * what they reran, as CircleCI lists them), those created together by name; a workflow's jobs come by number, which
 * is workflow then declaration order, with a retry after its first attempt. A workflow is a setup workflow (CircleCI's
 * {@code tag: setup}) when its pipeline has a continuation key that had not been used when it was created.
 */
@RegisterRowMapper(WorkflowDao.WorkflowMapper.class)
@RegisterRowMapper(WorkflowDao.WorkflowJobMapper.class)
interface WorkflowDao {
    String WORKFLOW_COLUMNS = """
            w.id, w.name, w.status, w.created_at, w.stopped_at, p.id AS pipeline_id, p.number AS pipeline_number,
            pr.organization, pr.name AS project_name, COALESCE(w.started_by, p.trigger_actor) AS started_by,
            w.canceled_by,
            EXISTS (SELECT 1 FROM gantry.pipeline_continuation c
                    WHERE c.pipeline_id = w.pipeline_id AND (c.continued_at IS NULL OR w.created_at < c.continued_at))
                AS setup
            """;

    @SqlQuery("SELECT " + WORKFLOW_COLUMNS + """
            FROM gantry.workflow w
            JOIN gantry.pipeline p ON p.id = w.pipeline_id
            JOIN gantry.project pr ON pr.id = p.project_id
            WHERE w.id = :id
            """)
    Optional<Workflow> find(UUID id);

    @SqlQuery("SELECT EXISTS (SELECT 1 FROM gantry.pipeline WHERE id = :id)")
    boolean pipelineExists(UUID id);

    @SqlQuery("SELECT " + WORKFLOW_COLUMNS + """
            FROM gantry.workflow w
            JOIN gantry.pipeline p ON p.id = w.pipeline_id
            JOIN gantry.project pr ON pr.id = p.project_id
            WHERE w.pipeline_id = :pipelineId
            ORDER BY w.created_at DESC, w.name, w.id
            LIMIT :limit
            """)
    List<Workflow> firstPageOfPipeline(UUID pipelineId, int limit);

    /** The page after the workflow ({@code createdAt}, {@code name}, {@code id}) in {@link #firstPageOfPipeline}'s order. */
    @SqlQuery("SELECT " + WORKFLOW_COLUMNS + """
            FROM gantry.workflow w
            JOIN gantry.pipeline p ON p.id = w.pipeline_id
            JOIN gantry.project pr ON pr.id = p.project_id
            WHERE w.pipeline_id = :pipelineId
              AND (w.created_at < :createdAt OR (w.created_at = :createdAt AND (w.name, w.id) > (:name, :id)))
            ORDER BY w.created_at DESC, w.name, w.id
            LIMIT :limit
            """)
    List<Workflow> pageOfPipelineAfter(UUID pipelineId, OffsetDateTime createdAt, String name, UUID id, int limit);

    /** The workflow's jobs numbered above {@code afterNumber}, by number. */
    @SqlQuery("""
            SELECT j.id, j.name, j.type, j.status, j.number, j.attempt, j.requires::text AS requires, j.started_at,
                   j.stopped_at, j.approved_by,
                   CASE WHEN j.status = 'canceled' THEN COALESCE(j.canceled_by, w.canceled_by) END AS canceled_by
            FROM gantry.job j
            JOIN gantry.workflow w ON w.id = j.workflow_id
            WHERE j.workflow_id = :workflowId AND j.number > :afterNumber
            ORDER BY j.number
            LIMIT :limit
            """)
    List<WorkflowJob> jobsAfter(UUID workflowId, long afterNumber, int limit);

    /** The id of the latest attempt of each job name in the workflow: what a dependency on that name means now. */
    @SqlQuery("""
            SELECT DISTINCT ON (name) name, id
            FROM gantry.job
            WHERE workflow_id = :workflowId
            ORDER BY name, attempt DESC
            """)
    @KeyColumn("name")
    @ValueColumn("id")
    Map<String, UUID> latestAttempts(UUID workflowId);

    /** Reads the columns of {@link #WORKFLOW_COLUMNS}. */
    final class WorkflowMapper implements RowMapper<Workflow> {
        @Override
        public Workflow map(ResultSet rs, StatementContext ctx) throws SQLException {
            return new Workflow(rs.getObject("id", UUID.class), rs.getString("name"), rs.getString("status"),
                    rs.getObject("pipeline_id", UUID.class), rs.getLong("pipeline_number"),
                    new ProjectSlug(rs.getString("organization"), rs.getString("project_name")).toString(),
                    instant(rs, "created_at"), instant(rs, "stopped_at"), rs.getString("started_by"),
                    rs.getString("canceled_by"), rs.getBoolean("setup"));
        }
    }

    /** Reads the columns {@link #jobsAfter} selects. */
    final class WorkflowJobMapper implements RowMapper<WorkflowJob> {
        private static final TypeReference<LinkedHashMap<String, List<String>>> REQUIRES = new TypeReference<>() {
        };

        @Override
        public WorkflowJob map(ResultSet rs, StatementContext ctx) throws SQLException {
            Map<String, List<String>> requires;
            try {
                requires = Json.MAPPER.readValue(rs.getString("requires"), REQUIRES);
            } catch (JsonProcessingException e) {
                throw new IllegalStateException("gantry.job.requires holds JSON that is not {name: [status]}", e);
            }
            return new WorkflowJob(rs.getObject("id", UUID.class), rs.getString("name"), rs.getString("type"),
                    rs.getString("status"), rs.getLong("number"), rs.getInt("attempt"), requires,
                    instant(rs, "started_at"), instant(rs, "stopped_at"), rs.getString("approved_by"),
                    rs.getString("canceled_by"));
        }
    }

    /** The {@code timestamptz} column {@code column}, or null. */
    static Instant instant(ResultSet rs, String column) throws SQLException {
        OffsetDateTime time = rs.getObject(column, OffsetDateTime.class);
        return time == null ? null : time.toInstant();
    }
}
