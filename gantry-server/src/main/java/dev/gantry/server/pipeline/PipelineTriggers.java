package dev.gantry.server.pipeline;

import dev.gantry.queue.NewMessage;
import dev.gantry.queue.Queues;
import dev.gantry.server.http.ApiException;
import dev.gantry.server.http.Json;
import dev.gantry.server.project.Project;
import dev.gantry.server.project.ProjectDao;
import dev.gantry.server.project.ProjectRoutes;
import dev.gantry.server.project.ProjectSlug;
import java.security.MessageDigest;
import java.time.Instant;
import java.time.InstantSource;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.JdbiException;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

/**
 * Triggers pipelines: one transaction stores the pipeline, takes its number and enqueues its plan message, so a
 * pipeline is never acknowledged without its message nor its message sent without the pipeline. If the database
 * cannot take the transaction, the caller gets the failure (a 503 for the client) and nothing has been written.
 *
 * <p>With an idempotency key, a repeat finds the first pipeline and returns it. Two requests with the same new key
 * at the same moment both miss it; the second to insert runs into the unique constraint on (project, key), rolls
 * back, and on its retry finds the first one's pipeline. Thread-safe.
 */
public final class PipelineTriggers {
    /** Where a new pipeline's plan message goes, its payload the pipeline id. */
    public static final String PLAN_QUEUE = "pipeline-plan";
    /** Two suffice (the retry after a key conflict finds the winner); the third only guards against a surprise. */
    private static final int ATTEMPTS = 3;
    private static final String UNIQUE_VIOLATION = "23505";

    private final Jdbi jdbi;
    private final Queues queues;
    private final InstantSource clock;

    public PipelineTriggers(Jdbi jdbi, Queues queues, InstantSource clock) {
        this.jdbi = jdbi;
        this.queues = queues;
        this.clock = clock;
    }

    /** A trigger's outcome: the pipeline, and whether this request made it (false for an idempotent repeat). */
    public record Triggered(Pipeline pipeline, boolean created) {
    }

    /**
     * Triggers a pipeline of {@code slug}'s project; returns once it and its plan message are committed.
     *
     * @throws ApiException 404 if there is no such project, 409 if {@code key} was used for a different request
     */
    Triggered trigger(ProjectSlug slug, TriggerRequest request, Optional<IdempotencyKey> key) {
        byte[] requestHash = request.hash();
        for (int attempt = 1; ; attempt++) {
            try {
                return jdbi.inTransaction(h -> trigger(h, slug, request, requestHash, key));
            } catch (JdbiException e) {
                if (attempt == ATTEMPTS || key.isEmpty() || !violates(e, PipelineDao.IDEMPOTENCY_CONSTRAINT)) {
                    throw e;
                }
            }
        }
    }

    private Triggered trigger(Handle h, ProjectSlug slug, TriggerRequest request, byte[] requestHash,
                              Optional<IdempotencyKey> key) {
        ProjectDao projects = h.attach(ProjectDao.class);
        PipelineDao pipelines = h.attach(PipelineDao.class);
        Project project = projects.find(slug.organization(), slug.name())
                .orElseThrow(() -> ProjectRoutes.unknown(slug.toString()));
        if (key.isPresent()) {
            Optional<PipelineDao.PriorTrigger> prior = pipelines.findByIdempotencyKey(project.id(), key.get().value());
            if (prior.isPresent()) {
                return new Triggered(repeat(pipelines, prior.get(), requestHash, key.get()), false);
            }
        }
        long number = projects.claimPipelineNumber(project.id()).orElseThrow(() ->
                new IllegalStateException("project " + slug + " vanished during a trigger"));
        Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
        Pipeline pipeline = new Pipeline(UUID.randomUUID(), slug, number, PipelineState.PENDING, request.ref(),
                request.revision(), request.parameters(), now, now);
        pipelines.insert(pipeline.id(), project.id(), number, pipeline.state().label(), request.ref().branch(),
                request.ref().tag(), request.revision(), Json.write(request.parameters()),
                key.map(IdempotencyKey::value).orElse(null), requestHash, now.atOffset(ZoneOffset.UTC));
        // No unique key: the message commits with its new pipeline or not at all, so it cannot be sent twice, and
        // a keyed enqueue costs three more round trips (lock, lookup) inside this transaction.
        queues.enqueue(h, NewMessage.to(PLAN_QUEUE).payload(pipeline.id().toString()).group(slug.organization()));
        return new Triggered(pipeline, true);
    }

    private static Pipeline repeat(PipelineDao pipelines, PipelineDao.PriorTrigger prior, byte[] requestHash,
                                   IdempotencyKey key) {
        Pipeline pipeline = pipelines.find(prior.id()).orElseThrow();
        if (!MessageDigest.isEqual(prior.requestHash(), requestHash)) {
            throw ApiException.conflict(IdempotencyKey.HEADER + " '" + key.value() + "' was used for a different "
                    + "request to this project (pipeline " + pipeline.number() + "); send a new key for a new request");
        }
        return pipeline;
    }

    /** The pipeline {@code id}, if there is one. */
    public Optional<Pipeline> find(UUID id) {
        return jdbi.withExtension(PipelineDao.class, pipelines -> pipelines.find(id));
    }

    /** The pipeline {@code id} as its API view shows it, if there is one. */
    Optional<PipelineView> findView(UUID id) {
        return jdbi.withExtension(PipelineDao.class, pipelines -> pipelines.findView(id));
    }

    private static boolean violates(Throwable failure, String constraint) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof PSQLException psql && UNIQUE_VIOLATION.equals(psql.getSQLState())) {
                ServerErrorMessage detail = psql.getServerErrorMessage();
                return detail != null && constraint.equals(detail.getConstraint());
            }
        }
        return false;
    }
}
