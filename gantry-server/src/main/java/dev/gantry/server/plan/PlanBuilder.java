package dev.gantry.server.plan;

import dev.gantry.config.CompileResult;
import dev.gantry.config.ConfigCompiler;
import dev.gantry.config.Limits;
import dev.gantry.config.orb.OrbResolver;
import dev.gantry.queue.Message;
import dev.gantry.queue.Queues;
import dev.gantry.queue.Worker;
import dev.gantry.scheduler.ResourceClasses;
import dev.gantry.server.ServerSettings;
import dev.gantry.server.http.DatabaseFailures;
import dev.gantry.server.pipeline.Pipeline;
import dev.gantry.server.pipeline.PipelineDao;
import dev.gantry.server.pipeline.PipelineError;
import dev.gantry.server.pipeline.PipelineState;
import dev.gantry.server.pipeline.PipelineTriggers;
import dev.gantry.server.project.Project;
import dev.gantry.server.project.ProjectDao;
import java.time.InstantSource;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns a pending pipeline into workflows and jobs: consumes {@value PipelineTriggers#PLAN_QUEUE} (payload: the
 * pipeline id), fetches the config at the pipeline's commit from its {@link ConfigSource}, compiles it, and stores
 * the plan or the reason it cannot run (see {@link PlanStore}). The fetch and the compile happen outside any
 * transaction.
 *
 * <p>What fails how: a config that cannot be had (unknown ref, no config at the commit), does not compile, or asks
 * for what this server cannot run makes the pipeline {@code errored} and completes the message. A fetch that may
 * work later (the network) is retried by the queue until the message's last delivery, which records it. The
 * database being unavailable is always retried. Anything else (a bug) is retried too, and on the last delivery
 * errors the pipeline with an id that the log repeats beside the stack trace, so no pipeline stays pending forever.
 *
 * <p>Idempotent, as the queue needs: a pipeline that is no longer pending is left alone. Thread-safe.
 */
public final class PlanBuilder {
    private static final Logger LOG = LoggerFactory.getLogger(PlanBuilder.class);

    /** Plans built at once; each mostly waits for git (plans of one project share a fetch). */
    public static final int CONCURRENCY = 2;
    /**
     * How the message of a {@link PipelineError#PLAN} error starts when the server, not the config, failed to plan:
     * the status page counts these against pipeline intake.
     */
    public static final String INTERNAL_ERROR = "planning failed on an internal error";

    /** What one call did. */
    public enum Outcome {
        /** The pipeline is {@code created}, its workflows and jobs stored. */
        CREATED,
        /** The pipeline is {@code errored}. */
        ERRORED,
        /** Nothing: the pipeline is not pending (another delivery settled it) or does not exist. */
        SKIPPED
    }

    private final Jdbi jdbi;
    private final Queues queues;
    private final ConfigSource configs;
    private final OrbResolver orbs;
    private final PlanStore store;
    private final ResourceClasses classes;
    private final int maxPipelineJobs;

    /** As the full constructor, with the default most jobs of a pipeline. */
    public PlanBuilder(Jdbi jdbi, Queues queues, ConfigSource configs, OrbResolver orbs,
                       ResourceClasses classes, InstantSource clock, Runnable tasksQueued) {
        this(jdbi, queues, configs, orbs, classes, clock, tasksQueued, ServerSettings.DEFAULT_MAX_PIPELINE_JOBS);
    }

    /**
     * @param jdbi    with the SqlObject plugin installed
     * @param orbs        where the registry orbs that configs import come from
     * @param classes     the resource classes jobs may name
     * @param tasksQueued called after a commit that queued tasks, to wake agents waiting for work
     * @param maxPipelineJobs the most jobs a pipeline's workflows may have together; a config with more errors the
     *                        pipeline, making no job
     */
    public PlanBuilder(Jdbi jdbi, Queues queues, ConfigSource configs, OrbResolver orbs,
                       ResourceClasses classes, InstantSource clock, Runnable tasksQueued, int maxPipelineJobs) {
        this.maxPipelineJobs = maxPipelineJobs;
        this.classes = Objects.requireNonNull(classes, "classes");
        this.jdbi = Objects.requireNonNull(jdbi, "jdbi");
        this.queues = Objects.requireNonNull(queues, "queues");
        this.configs = Objects.requireNonNull(configs, "configs");
        this.orbs = Objects.requireNonNull(orbs, "orbs");
        this.store = new PlanStore(jdbi, classes, clock, tasksQueued);
    }

    /** The name of this process's worker, {@code plan-builder@INSTANCE}. */
    public static String workerName(String instance) {
        return "plan-builder@" + instance;
    }

    /**
     * Starts consuming {@value PipelineTriggers#PLAN_QUEUE} as the server {@code instance}; closing the worker waits
     * for the plans under way.
     */
    public Worker start(String instance) {
        return start(instance, Worker.ClaimGate.OPEN);
    }

    /** As {@link #start(String)}, claiming only as much as {@code gate} admits (dispatch's self-pause). */
    public Worker start(String instance, Worker.ClaimGate gate) {
        // No prefetch: a plan takes as long as its git fetch, and a message waiting behind it would only wait.
        return Worker.start(queues, PipelineTriggers.PLAN_QUEUE, this::handle,
                Worker.Options.named(workerName(instance), CONCURRENCY).withPrefetch(0).withGate(gate));
    }

    /** Handles one delivery of a plan message. */
    public void handle(Message message) throws InterruptedException {
        UUID pipelineId;
        try {
            pipelineId = UUID.fromString(message.payload());
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new Worker.FatalFailure("the payload of a plan message is a pipeline id, got '" + message.payload()
                    + "'");
        }
        try {
            build(pipelineId, message.lastAttempt());
        } catch (RuntimeException e) {
            if (!message.lastAttempt() || DatabaseFailures.retryAfter(e).isPresent()) {
                throw e;
            }
            String errorId = UUID.randomUUID().toString();
            LOG.error("planning pipeline {} failed on its last delivery, error id {}", pipelineId, errorId, e);
            store.errored(pipelineId, null, List.of(new PipelineError(PipelineError.PLAN, INTERNAL_ERROR
                    + "; the server log has the details under error id " + errorId)));
        }
    }

    /**
     * Plans the pipeline {@code pipelineId} if it is pending.
     *
     * @param lastAttempt true when no retry follows: a transient fetch failure is then recorded, not thrown
     * @throws ConfigFetchException for a transient fetch failure when {@code lastAttempt} is false
     */
    public Outcome build(UUID pipelineId, boolean lastAttempt) throws InterruptedException {
        Optional<Pipeline> found = jdbi.withExtension(PipelineDao.class, pipelines -> pipelines.find(pipelineId));
        if (found.isEmpty() || found.get().state() != PipelineState.PENDING) {
            LOG.debug("pipeline {} is {}; nothing to plan", pipelineId,
                    found.map(p -> p.state().label()).orElse("not there"));
            return Outcome.SKIPPED;
        }
        Pipeline pipeline = found.get();
        Project project = jdbi.withExtension(ProjectDao.class, projects -> projects.find(
                pipeline.project().organization(), pipeline.project().name())).orElseThrow(() ->
                new IllegalStateException("pipeline " + pipelineId + " has no project " + pipeline.project()));
        ConfigSource.FetchedConfig config;
        try {
            // As of created_at, not of when this delivery arrived: the trigger is the moment the user means ("build
            // what I just pushed"), so a fetch started after it is fresh enough, and a pipeline that waited in the
            // queue is served by a fetch started while it waited. The server that took the trigger stamped created_at
            // with its clock, so with several servers this relies on their clocks agreeing (NTP).
            config = configs.fetch(project.id(), project.vcsUrl(), pipeline.ref(), pipeline.revision(),
                    pipeline.createdAt());
        } catch (ConfigFetchException e) {
            if (e.transientFailure() && !lastAttempt) {
                LOG.warn("pipeline {} #{}: {}; the queue will try again", pipeline.project(), pipeline.number(),
                        e.getMessage());
                throw e;
            }
            return errored(pipeline, e.revision().orElse(null),
                    List.of(new PipelineError(PipelineError.CONFIG_FETCH, e.getMessage())));
        }
        Pipeline planned = pipeline;
        if (pipeline.ref() == null) {
            // Triggered without branch or tag: it builds the default branch, known now that the repository is
            // fetched. Recorded at once (still pending, so a redelivery resolves it the same way), which is what the
            // plan's branch-dependent steps (auto-cancel, pipeline.git.branch) then read.
            String branch = config.defaultBranch();
            planned = pipeline.onBranch(branch);
            jdbi.useExtension(PlanDao.class, dao -> dao.resolveDefaultBranch(pipelineId, branch));
        }
        ResolvedOrbs resolved = new ResolvedOrbs(orbs);
        CompileResult result = ConfigCompiler.create(resolved, Limits.DEFAULTS).compile(config.path(), config.text(),
                PipelineContexts.of(planned, project, config.revision()));
        if (resolved.failure().isPresent()) {
            RuntimeException failure = resolved.failure().get();
            if (DatabaseFailures.retryAfter(failure).isPresent()) {
                throw failure;
            }
            String message = "cannot resolve the config's orbs: " + failure.getMessage();
            if (!lastAttempt) {
                LOG.warn("pipeline {} #{}: {}; the queue will try again", pipeline.project(), pipeline.number(),
                        message);
                throw ConfigFetchException.transientFailure(message);
            }
            return errored(pipeline, config.revision(), List.of(new PipelineError(PipelineError.CONFIG_FETCH,
                    message)));
        }
        if (!result.ok()) {
            return errored(pipeline, config.revision(), PlanChecks.compileErrors(result.errors()));
        }
        List<PipelineError> tooMany = PlanChecks.tooManyJobs(PlanChecks.jobCount(result.plan()), maxPipelineJobs,
                "the config's workflows have");
        if (!tooMany.isEmpty()) {
            return errored(pipeline, config.revision(), tooMany);
        }
        List<PipelineError> unrunnable = PlanChecks.unrunnable(result.plan(), classes);
        if (!unrunnable.isEmpty()) {
            return errored(pipeline, config.revision(), unrunnable);
        }
        if (!store.created(pipelineId, project.id(), config.revision(), config.defaultBranch(), result.plan(),
                resolved.resolved(), config.text())) {
            return Outcome.SKIPPED;
        }
        LOG.info("pipeline {} #{} planned at {} from {}: {} workflows, {} jobs", pipeline.project(),
                pipeline.number(), config.revision(), config.path(), result.plan().workflows().size(),
                PlanChecks.jobCount(result.plan()));
        return Outcome.CREATED;
    }

    private Outcome errored(Pipeline pipeline, String revision, List<PipelineError> errors) {
        if (!store.errored(pipeline.id(), revision, errors)) {
            return Outcome.SKIPPED;
        }
        LOG.info("pipeline {} #{} errored: {}", pipeline.project(), pipeline.number(), errors.getFirst().message());
        return Outcome.ERRORED;
    }
}
