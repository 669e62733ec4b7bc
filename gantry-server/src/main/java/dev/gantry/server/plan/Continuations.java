package dev.gantry.server.plan;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gantry.config.CompileResult;
import dev.gantry.config.ConfigCompiler;
import dev.gantry.config.Limits;
import dev.gantry.config.orb.OrbResolver;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gantry.config.plan.Plan;
import dev.gantry.scheduler.ResourceClasses;
import dev.gantry.server.ServerSettings;
import dev.gantry.server.http.ApiException;
import dev.gantry.server.http.Json;
import dev.gantry.server.http.JsonBody;
import dev.gantry.server.http.JsonFields;
import io.javalin.http.Context;
import dev.gantry.server.pipeline.Pipeline;
import dev.gantry.server.pipeline.PipelineDao;
import dev.gantry.server.pipeline.PipelineError;
import dev.gantry.server.pipeline.PipelineParameters;
import dev.gantry.server.project.Project;
import dev.gantry.server.project.ProjectDao;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.InstantSource;
import java.time.OffsetDateTime;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Dynamic configuration's second half, CircleCI's {@code POST /api/v2/pipeline/continue}: a job of a setup pipeline's
 * workflow sends the pipeline's continuation key (its {@code CIRCLE_CONTINUATION_KEY}), a config and pipeline
 * parameters; the config is compiled in the pipeline's context with those parameters and its workflows join the
 * pipeline, which becomes {@code created}. A key works once, for {@link #KEY_LIFETIME}; the key is the only
 * credential, as in CircleCI. A config that does not compile errors the pipeline with its diagnostics. Thread-safe.
 */
public final class Continuations {
    private static final Logger LOG = LoggerFactory.getLogger(Continuations.class);
    /** As long as a setup workflow may take. */
    static final Duration KEY_LIFETIME = Duration.ofHours(6);
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Jdbi jdbi;
    private final OrbResolver orbs;
    private final PlanStore store;
    private final InstantSource clock;
    private final int maxPipelineJobs;

    /** As the full constructor, with the default most jobs of a pipeline. */
    public Continuations(Jdbi jdbi, OrbResolver orbs, ResourceClasses classes, InstantSource clock,
                         Runnable tasksQueued) {
        this(jdbi, orbs, classes, clock, tasksQueued, ServerSettings.DEFAULT_MAX_PIPELINE_JOBS);
    }

    /**
     * @param tasksQueued     called after a commit that queued tasks, to wake agents waiting for work
     * @param maxPipelineJobs the most jobs a pipeline may have, its setup workflow's and the continued config's
     *                        together
     */
    public Continuations(Jdbi jdbi, OrbResolver orbs, ResourceClasses classes, InstantSource clock,
                         Runnable tasksQueued, int maxPipelineJobs) {
        this.maxPipelineJobs = maxPipelineJobs;
        this.jdbi = jdbi;
        this.orbs = orbs;
        this.store = new PlanStore(jdbi, classes, clock, tasksQueued);
        this.clock = clock;
    }

    /**
     * {@code POST /api/v2/pipeline/continue} with {@code {"continuation-key", "configuration", "parameters"}}: 200 once
     * continued. No API token: the key is the credential.
     */
    public void route(Context ctx) {
        ObjectNode body = JsonBody.readObject(ctx);
        JsonFields fields = JsonFields.of(body, Set.of("continuation-key", "configuration", "parameters"));
        continuePipeline(fields.requiredString("continuation-key"), fields.requiredString("configuration"),
                parameters(body.get("parameters")));
        Json.respond(ctx, 200, Map.of("message", "Pipeline continued."));
    }

    /** The continuation of the setup pipeline a key names, as stored. */
    private record Continuation(UUID pipelineId, OffsetDateTime createdAt, OffsetDateTime continuedAt) {
    }

    /**
     * Continues the pipeline {@code key} names with {@code configuration}.
     *
     * @throws ApiException 401 for an unknown or expired key, 409 for a key used already, 400 for a config that does
     *                      not compile (the pipeline is then errored with why)
     */
    public void continuePipeline(String key, String configuration, Map<String, Object> parameters) {
        Continuation continuation = jdbi.withHandle(h -> h.createQuery("""
                        SELECT pipeline_id, created_at, continued_at FROM gantry.pipeline_continuation
                        WHERE key_hash = :hash""").bind("hash", hash(key))
                        .map((rs, ctx) -> new Continuation(rs.getObject(1, UUID.class),
                                rs.getObject(2, OffsetDateTime.class), rs.getObject(3, OffsetDateTime.class)))
                        .findOne())
                .orElseThrow(() -> ApiException.unauthorized("unknown continuation key; send the setup job's "
                        + "CIRCLE_CONTINUATION_KEY"));
        if (continuation.continuedAt() != null) {
            throw ApiException.conflict("this pipeline was continued already, at " + continuation.continuedAt()
                    + "; a continuation key works once");
        }
        if (continuation.createdAt().toInstant().plus(KEY_LIFETIME).isBefore(clock.instant())) {
            throw ApiException.unauthorized("the continuation key expired: it works for " + KEY_LIFETIME.toHours()
                    + " hours after the setup workflow starts");
        }
        Pipeline pipeline = jdbi.withExtension(PipelineDao.class, d -> d.find(continuation.pipelineId()))
                .orElseThrow();
        Project project = jdbi.withExtension(ProjectDao.class, d -> d.find(pipeline.project().organization(),
                pipeline.project().name())).orElseThrow();
        ResolvedOrbs resolved = new ResolvedOrbs(orbs);
        CompileResult result = ConfigCompiler.create(resolved, Limits.DEFAULTS).compile("continuation config",
                configuration, PipelineContexts.of(pipeline, project, pipeline.revision(), parameters));
        if (resolved.failure().isPresent()) {
            throw ApiException.unavailable("cannot resolve the config's orbs now: " + resolved.failure().get()
                    .getMessage());
        }
        List<PipelineError> errors = !result.ok() ? PlanChecks.compileErrors(result.errors())
                : result.plan().setup() ? List.of(new PipelineError(PipelineError.CONFIG, "a continued config "
                + "cannot be a setup config ('setup: true')")) : tooManyJobs(pipeline.id(), result.plan());
        if (!errors.isEmpty()) {
            store.erroredInSetup(pipeline.id(), errors);
            throw ApiException.badRequest("the continued config does not compile, so pipeline " + pipeline.number()
                    + " errored: " + errors.getFirst().message() + (errors.size() > 1 ? " (and " + (errors.size() - 1)
                    + " more)" : ""));
        }
        if (!store.continued(pipeline.id(), project.id(), result.plan(), resolved.resolved(), configuration)) {
            throw ApiException.conflict("pipeline " + pipeline.number() + " is not in setup any more");
        }
        LOG.info("pipeline {} #{} continued: {} workflows", pipeline.project(), pipeline.number(),
                result.plan().workflows().size());
    }

    /** The error when the setup workflow's jobs and the continued {@code plan}'s are more than a pipeline may have. */
    private List<PipelineError> tooManyJobs(UUID pipelineId, Plan plan) {
        int setupJobs = jdbi.withHandle(h -> h.createQuery("""
                SELECT count(*) FROM gantry.job j JOIN gantry.workflow w ON w.id = j.workflow_id
                WHERE w.pipeline_id = :id""").bind("id", pipelineId).mapTo(Integer.class).one());
        int continued = PlanChecks.jobCount(plan);
        return PlanChecks.tooManyJobs(setupJobs + continued, maxPipelineJobs, "the continued config's workflows have "
                + continued + " jobs and the setup workflow " + setupJobs + ": together");
    }

    /**
     * The parameters of a continuation request, or nothing: checked as a trigger's are
     * ({@link PipelineParameters#checked}).
     */
    static Map<String, Object> parameters(JsonNode node) {
        if (node == null || node.isNull()) {
            return Map.of();
        }
        if (!(node instanceof ObjectNode object)) {
            throw ApiException.invalid("parameters", "\"parameters\" must be an object of pipeline parameters");
        }
        return PipelineParameters.checked(object, "parameters");
    }

    static String newKey() {
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    static byte[] hash(String key) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The pipeline's key while its setup workflow may still continue it: what its jobs get. */
    public static Optional<String> keyOf(org.jdbi.v3.core.Handle h, UUID pipelineId) {
        return h.createQuery("SELECT key FROM gantry.pipeline_continuation WHERE pipeline_id = :id "
                + "AND continued_at IS NULL").bind("id", pipelineId).mapTo(String.class).findOne();
    }
}
