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
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.config.RegisterRowMapper;
import org.jdbi.v3.sqlobject.customizer.BindMethods;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

/** Every statement on {@code gantry.pipeline}. */
@RegisterRowMapper(PipelineDao.PipelineMapper.class)
@RegisterRowMapper(PipelineDao.PriorTriggerMapper.class)
@RegisterRowMapper(PipelineDao.PipelineViewMapper.class)
public interface PipelineDao {
    /** The name of the unique constraint that a second pipeline with a used idempotency key runs into. */
    String IDEMPOTENCY_CONSTRAINT = "pipeline_idempotency_key";

    /** What {@link PipelineViewMapper} reads, from {@code gantry.pipeline p} joined with {@code gantry.project pr}. */
    String VIEW_COLUMNS = """
            p.id, p.number, p.state, p.branch, p.tag, p.revision, p.parameters::text AS parameters,
            p.created_at, p.updated_at, pr.organization, pr.name,
            p.trigger_type, p.trigger_actor, p.trigger_actor_avatar_url, p.trigger_received_at,
            p.vcs_provider, p.base_revision, p.review_id, p.review_url, p.commit_subject, p.commit_body,
            p.commit_author, p.origin_repository_url, p.target_repository_url, pr.vcs_url, p.errors::text AS errors
            """;

    /** A pipeline made with an idempotency key, and the hash of the request that made it. */
    record PriorTrigger(UUID id, byte[] requestHash) {
    }

    /** Fails on {@link #IDEMPOTENCY_CONSTRAINT} when the project has a pipeline with this idempotency key. */
    @SqlUpdate("""
            INSERT INTO gantry.pipeline (id, project_id, number, state, branch, tag, revision, parameters,
                                         idempotency_key, request_hash, created_at, updated_at,
                                         trigger_type, trigger_actor, trigger_actor_avatar_url, trigger_received_at,
                                         vcs_provider, base_revision, review_id, review_url, commit_subject,
                                         commit_body, commit_author, origin_repository_url, target_repository_url)
            VALUES (:id, :projectId, :number, :state, :branch, :tag, :revision, CAST(:parameters AS jsonb),
                    :idempotencyKey, :requestHash, :createdAt, :createdAt,
                    :triggerType, :triggerActor, :triggerActorAvatarUrl, :triggerReceivedAt,
                    :vcs.provider, :vcs.baseRevision, :vcs.reviewId, :vcs.reviewUrl, :vcs.commitSubject,
                    :vcs.commitBody, :vcs.commitAuthor, :vcs.originRepositoryUrl, :vcs.targetRepositoryUrl)
            """)
    void insert(UUID id, UUID projectId, long number, String state, String branch, String tag, String revision,
                String parameters, String idempotencyKey, byte[] requestHash, OffsetDateTime createdAt,
                String triggerType, String triggerActor, String triggerActorAvatarUrl,
                OffsetDateTime triggerReceivedAt, @BindMethods("vcs") PipelineTrigger.Vcs vcs);

    @SqlQuery("""
            SELECT p.id, p.number, p.state, p.branch, p.tag, p.revision, p.parameters::text AS parameters,
                   p.created_at, p.updated_at, pr.organization, pr.name,
                   p.trigger_type, p.trigger_actor, p.trigger_actor_avatar_url, p.trigger_received_at,
                   p.vcs_provider, p.base_revision, p.review_id, p.review_url, p.commit_subject, p.commit_body,
                   p.commit_author, p.origin_repository_url, p.target_repository_url
            FROM gantry.pipeline p
            JOIN gantry.project pr ON pr.id = p.project_id
            WHERE p.id = :id
            """)
    Optional<Pipeline> find(UUID id);

    /** The pipeline with what only its API view shows: its project's repository and why it errored. */
    @SqlQuery("SELECT " + VIEW_COLUMNS + """
            FROM gantry.pipeline p
            JOIN gantry.project pr ON pr.id = p.project_id
            WHERE p.id = :id
            """)
    Optional<PipelineView> findView(UUID id);


    /**
     * A page of the project's pipelines, newest (highest number) first, numbered below {@code beforeNumber}; only those
     * on {@code branch} unless it is null, and only those {@code actor} triggered through the API or a schedule unless
     * it is null (a forge user's login is another namespace).
     */
    @SqlQuery("SELECT " + VIEW_COLUMNS + """
            FROM gantry.pipeline p
            JOIN gantry.project pr ON pr.id = p.project_id
            WHERE p.project_id = :projectId AND p.number < :beforeNumber
              AND (CAST(:branch AS text) IS NULL OR p.branch = CAST(:branch AS text))
              AND (CAST(:actor AS text) IS NULL
                   OR (p.trigger_actor = CAST(:actor AS text) AND p.trigger_type <> 'webhook'))
            ORDER BY p.number DESC
            LIMIT :limit
            """)
    List<PipelineView> pageOfProject(UUID projectId, long beforeNumber, String branch, String actor, int limit);

    @SqlQuery("SELECT " + VIEW_COLUMNS + """
            FROM gantry.pipeline p
            JOIN gantry.project pr ON pr.id = p.project_id
            WHERE p.project_id = :projectId AND p.number = :number
            """)
    Optional<PipelineView> findViewByNumber(UUID projectId, long number);

    /** The config a pipeline ran as read and as compiled; empty before the plan builder stored it. */
    @SqlQuery("""
            SELECT source, compiled, setup_source, setup_compiled
            FROM gantry.pipeline_config
            WHERE pipeline_id = :pipelineId
            """)
    @RegisterConstructorMapper(StoredConfig.class)
    Optional<StoredConfig> config(UUID pipelineId);

    /** The config columns of {@code gantry.pipeline_config}, each null when the pipeline has none. */
    record StoredConfig(String source, String compiled, String setupSource, String setupCompiled) {
    }

    /** The exact version each orb reference compiled with, by reference. */
    @SqlQuery("""
            SELECT reference, version
            FROM gantry.pipeline_orb
            WHERE pipeline_id = :pipelineId
            ORDER BY reference
            """)
    @RegisterConstructorMapper(PipelineOrb.class)
    List<PipelineOrb> orbs(UUID pipelineId);

    /** An orb reference of the config ({@code circleci/node@5}) and the version it resolved to. */
    record PipelineOrb(String reference, String version) {
    }

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
            String tag = rs.getString("tag");
            GitRef ref = branch != null ? GitRef.branch(branch) : tag != null ? GitRef.tag(tag) : null;
            return new Pipeline(rs.getObject("id", UUID.class),
                    new ProjectSlug(rs.getString("organization"), rs.getString("name")), rs.getLong("number"),
                    PipelineState.ofLabel(rs.getString("state")), ref, rs.getString("revision"),
                    parameters(rs.getString("parameters")),
                    rs.getObject("created_at", OffsetDateTime.class).toInstant(),
                    rs.getObject("updated_at", OffsetDateTime.class).toInstant(), trigger(rs));
        }

        private static PipelineTrigger trigger(ResultSet rs) throws SQLException {
            return new PipelineTrigger(PipelineTrigger.Type.ofLabel(rs.getString("trigger_type")),
                    rs.getString("trigger_actor"), rs.getString("trigger_actor_avatar_url"),
                    rs.getObject("trigger_received_at", OffsetDateTime.class).toInstant(),
                    new PipelineTrigger.Vcs(rs.getString("vcs_provider"), rs.getString("base_revision"),
                            rs.getString("review_id"), rs.getString("review_url"), rs.getString("commit_subject"),
                            rs.getString("commit_body"), rs.getString("commit_author"),
                            rs.getString("origin_repository_url"), rs.getString("target_repository_url")));
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
