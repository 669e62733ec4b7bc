package dev.gantry.server.pipeline;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import dev.gantry.server.http.Json;
import dev.gantry.server.project.ProjectSlug;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import org.jdbi.v3.core.mapper.RowMapper;
import org.jdbi.v3.core.statement.StatementContext;
import org.jdbi.v3.sqlobject.config.RegisterRowMapper;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

/** Every statement on {@code gantry.pipeline}. */
@RegisterRowMapper(PipelineDao.PipelineMapper.class)
@RegisterRowMapper(PipelineDao.PriorTriggerMapper.class)
@RegisterRowMapper(PipelineDao.PipelineViewMapper.class)
public interface PipelineDao {
    /** The name of the unique constraint that a second pipeline with a used idempotency key runs into. */
    String IDEMPOTENCY_CONSTRAINT = "pipeline_idempotency_key";

    /** A pipeline made with an idempotency key, and the hash of the request that made it. */
    record PriorTrigger(UUID id, byte[] requestHash) {
    }

    /** Fails on {@link #IDEMPOTENCY_CONSTRAINT} when the project has a pipeline with this idempotency key. */
    @SqlUpdate("""
            INSERT INTO gantry.pipeline (id, project_id, number, state, branch, tag, revision, parameters,
                                         idempotency_key, request_hash, created_at, updated_at)
            VALUES (:id, :projectId, :number, :state, :branch, :tag, :revision, CAST(:parameters AS jsonb),
                    :idempotencyKey, :requestHash, :createdAt, :createdAt)
            """)
    void insert(UUID id, UUID projectId, long number, String state, String branch, String tag, String revision,
                String parameters, String idempotencyKey, byte[] requestHash, OffsetDateTime createdAt);

    @SqlQuery("""
            SELECT p.id, p.number, p.state, p.branch, p.tag, p.revision, p.parameters::text AS parameters,
                   p.created_at, p.updated_at, pr.organization, pr.name
            FROM gantry.pipeline p
            JOIN gantry.project pr ON pr.id = p.project_id
            WHERE p.id = :id
            """)
    Optional<Pipeline> find(UUID id);

    /** The pipeline with what only its API view shows: its project's repository and why it errored. */
    @SqlQuery("""
            SELECT p.id, p.number, p.state, p.branch, p.tag, p.revision, p.parameters::text AS parameters,
                   p.created_at, p.updated_at, pr.organization, pr.name, pr.vcs_url, p.errors::text AS errors
            FROM gantry.pipeline p
            JOIN gantry.project pr ON pr.id = p.project_id
            WHERE p.id = :id
            """)
    Optional<PipelineView> findView(UUID id);

    @SqlQuery("""
            SELECT id, request_hash
            FROM gantry.pipeline
            WHERE project_id = :projectId AND idempotency_key = :idempotencyKey
            """)
    Optional<PriorTrigger> findByIdempotencyKey(UUID projectId, String idempotencyKey);

    /** Reads the columns {@link #find} selects. */
    final class PipelineMapper implements RowMapper<Pipeline> {
        private static final TypeReference<TreeMap<String, Object>> PARAMETERS = new TypeReference<>() {
        };

        @Override
        public Pipeline map(ResultSet rs, StatementContext ctx) throws SQLException {
            String branch = rs.getString("branch");
            GitRef ref = branch != null ? GitRef.branch(branch) : GitRef.tag(rs.getString("tag"));
            return new Pipeline(rs.getObject("id", UUID.class),
                    new ProjectSlug(rs.getString("organization"), rs.getString("name")), rs.getLong("number"),
                    PipelineState.ofLabel(rs.getString("state")), ref, rs.getString("revision"),
                    parameters(rs.getString("parameters")),
                    rs.getObject("created_at", OffsetDateTime.class).toInstant(),
                    rs.getObject("updated_at", OffsetDateTime.class).toInstant());
        }

        private static Map<String, Object> parameters(String json) {
            try {
                return Collections.unmodifiableSortedMap(Json.MAPPER.readValue(json, PARAMETERS));
            } catch (JsonProcessingException e) {
                throw new IllegalStateException("gantry.pipeline.parameters holds JSON that is not an object", e);
            }
        }
    }

    /** Reads the columns {@link #findView} selects. */
    final class PipelineViewMapper implements RowMapper<PipelineView> {
        private static final TypeReference<List<PipelineError>> ERRORS = new TypeReference<>() {
        };
        private final PipelineMapper pipelines = new PipelineMapper();

        @Override
        public PipelineView map(ResultSet rs, StatementContext ctx) throws SQLException {
            try {
                return new PipelineView(pipelines.map(rs, ctx), rs.getString("vcs_url"),
                        Json.MAPPER.readValue(rs.getString("errors"), ERRORS));
            } catch (JsonProcessingException e) {
                throw new IllegalStateException("gantry.pipeline.errors holds JSON that is not a list of errors", e);
            }
        }
    }

    /** Reads the columns {@link #findByIdempotencyKey} selects. */
    final class PriorTriggerMapper implements RowMapper<PriorTrigger> {
        @Override
        public PriorTrigger map(ResultSet rs, StatementContext ctx) throws SQLException {
            return new PriorTrigger(rs.getObject("id", UUID.class), rs.getBytes("request_hash"));
        }
    }
}
