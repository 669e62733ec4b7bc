package dev.gantry.server.pipeline;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gantry.queue.NewMessage;
import dev.gantry.queue.Queues;
import dev.gantry.server.http.ApiException;
import dev.gantry.server.http.Json;
import dev.gantry.server.http.JsonFields;
import dev.gantry.server.http.RequestLocks;
import dev.gantry.server.project.Project;
import dev.gantry.server.project.ProjectDao;
import dev.gantry.server.project.ProjectRoutes;
import dev.gantry.server.project.ProjectSlug;
import java.security.MessageDigest;
import java.time.Instant;
import java.time.InstantSource;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Collections;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.HandleCallback;
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
 * back, and on its retry finds the first one's pipeline. A webhook delivery is deduplicated the same way, by the
 * forge's delivery id in {@code gantry.webhook_delivery}, whose row commits with the pipeline. Thread-safe.
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
     * Triggers a pipeline of {@code slug}'s project for the user {@code actor}; returns once it and its plan message
     * are committed.
     *
     * @throws ApiException 404 if there is no such project, 409 if {@code key} was used for a different request
     */
    Triggered trigger(ProjectSlug slug, TriggerRequest request, Optional<IdempotencyKey> key, String actor) {
        return trigger(slug, request, key, PipelineTrigger.api(actor, now()));
    }

    /**
     * Triggers a scheduled pipeline: {@code body} is a trigger's request body ({@code branch} or {@code tag},
     * {@code parameters}), {@code slot} the idempotency key of its slot, so a repeat finds the slot's first pipeline.
     *
     * @throws ApiException 400 for a body a trigger refuses, 404 if there is no such project, 409 if the slot started
     *                      a pipeline with another request
     */
    public Triggered triggerScheduled(ProjectSlug slug, ObjectNode body, PipelineTrigger trigger, String slot) {
        return trigger(slug, TriggerRequest.from(JsonFields.of(body, TriggerRequest.FIELDS), true),
                Optional.of(new IdempotencyKey(slot)), trigger);
    }

    /**
     * Checks a schedule's trigger body as {@code POST /project/{slug}/pipeline} does, except that it must name a branch
     * or tag: 400 naming the field.
     */
    public static void checkTrigger(ObjectNode body) {
        TriggerRequest.from(JsonFields.of(body, TriggerRequest.FIELDS), true);
    }

    private Triggered trigger(ProjectSlug slug, TriggerRequest request, Optional<IdempotencyKey> key,
                              PipelineTrigger trigger) {
        byte[] requestHash = request.hash();
        return retryingConflicts(key.isPresent(), PipelineDao.IDEMPOTENCY_CONSTRAINT, h -> {
            PipelineDao pipelines = h.attach(PipelineDao.class);
            Project project = h.attach(ProjectDao.class).find(slug.organization(), slug.name())
                    .orElseThrow(() -> ProjectRoutes.unknown(slug.toString()));
            if (key.isPresent()) {
                Optional<PipelineDao.PriorTrigger> prior = pipelines.findByIdempotencyKey(project.id(),
                        key.get().value());
                if (prior.isPresent()) {
                    return new Triggered(repeat(pipelines, prior.get(), requestHash, key.get()), false);
                }
            }
            return insert(h, project, request, requestHash, key, trigger);
        });
    }

    /**
     * Triggers a pipeline of {@code project} on {@code ref} at {@code revision} for a forge's webhook delivery, and
     * records the delivery in the same transaction: a redelivery (also one racing this) gets the first pipeline
     * back, with {@code created} false, and makes none.
     */
    public Triggered triggerFromWebhook(Project project, GitRef ref, String revision, PipelineTrigger trigger,
                                        Delivery delivery) {
        TriggerRequest request = new TriggerRequest(ref, revision, Collections.emptySortedMap());
        byte[] requestHash = request.hash();
        return retryingConflicts(true, WebhookDeliveryDao.ONCE_CONSTRAINT, h -> {
            WebhookDeliveryDao deliveries = h.attach(WebhookDeliveryDao.class);
            Optional<UUID> prior = deliveries.find(delivery.provider(), delivery.id(), project.id());
            if (prior.isPresent()) {
                return new Triggered(h.attach(PipelineDao.class).find(prior.get()).orElseThrow(), false);
            }
            Triggered made = insert(h, project, request, requestHash, Optional.empty(), trigger);
            deliveries.insert(delivery.provider(), delivery.id(), project.id(), made.pipeline().id(),
                    trigger.receivedAt().atOffset(ZoneOffset.UTC));
            return made;
        });
    }

    /**
     * Runs {@code work} in a transaction; when it fails on {@code constraint} (a concurrent twin committed first),
     * runs it again, and then it finds the twin's pipeline.
     */
    private Triggered retryingConflicts(boolean mayConflict, String constraint, HandleCallback<Triggered,
            RuntimeException> work) {
        for (int attempt = 1; ; attempt++) {
            try {
                return jdbi.inTransaction(h -> {
                    RequestLocks.bound(h); // the project's row, for its next number: a slow holder gets a 503
                    return work.withHandle(h);
                });
            } catch (JdbiException e) {
                if (attempt == ATTEMPTS || !mayConflict || !violates(e, constraint)) {
                    throw e;
                }
            }
        }
    }

    private Triggered insert(Handle h, Project project, TriggerRequest request, byte[] requestHash,
                             Optional<IdempotencyKey> key, PipelineTrigger trigger) {
        ProjectSlug slug = project.slug();
        long number = h.attach(ProjectDao.class).claimPipelineNumber(project.id()).orElseThrow(() ->
                new IllegalStateException("project " + slug + " vanished during a trigger"));
        Instant now = now();
        Pipeline pipeline = new Pipeline(UUID.randomUUID(), slug, number, PipelineState.PENDING, request.ref(),
                request.revision(), request.parameters(), now, now, trigger);
        h.attach(PipelineDao.class).insert(pipeline.id(), project.id(), number, pipeline.state().label(),
                branch(request.ref()), tag(request.ref()), request.revision(), Json.write(request.parameters()),
                key.map(IdempotencyKey::value).orElse(null), requestHash, now.atOffset(ZoneOffset.UTC),
                trigger.type().label(), trigger.actor(), trigger.actorAvatarUrl(),
                trigger.receivedAt().atOffset(ZoneOffset.UTC), trigger.vcs());
        // No unique key: the message commits with its new pipeline or not at all, so it cannot be sent twice, and
        // a keyed enqueue costs three more round trips (lock, lookup) inside this transaction.
        queues.enqueue(h, NewMessage.to(PLAN_QUEUE).payload(pipeline.id().toString()).group(slug.organization()));
        return new Triggered(pipeline, true);
    }

    private static String branch(GitRef ref) {
        return ref == null ? null : ref.branch();
    }

    private static String tag(GitRef ref) {
        return ref == null ? null : ref.tag();
    }

    /** PostgreSQL keeps microseconds: what a response shows is then exactly what a later read shows. */
    private Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MICROS);
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

    /** The database the pipelines are in, for the routes' reads. */
    Jdbi jdbi() {
        return jdbi;
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
