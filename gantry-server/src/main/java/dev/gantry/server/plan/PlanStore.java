package dev.gantry.server.plan;

import dev.gantry.config.plan.Plan;
import dev.gantry.config.plan.PlanJob;
import dev.gantry.config.plan.PlanWorkflow;
import dev.gantry.config.plan.PlanYaml;
import dev.gantry.scheduler.ResourceClasses;
import dev.gantry.server.http.Json;
import dev.gantry.server.notify.EventOutbox;
import dev.gantry.server.orchestrator.WorkflowAdvancer;
import dev.gantry.server.orchestrator.WorkflowCommands;
import dev.gantry.server.pipeline.PipelineError;
import dev.gantry.server.pipeline.PipelineState;
import dev.gantry.server.run.WorkflowStatus;
import java.time.InstantSource;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * Settles a pending pipeline in one transaction each way: {@link #created} stores its workflows and jobs and
 * advances each workflow (queuing the tasks of the jobs that require nothing), waking the agents after the commit;
 * {@link #errored} records why it cannot run. Both start with a compare-and-set from {@code pending}, so of two
 * deliveries of one plan message only the first writes anything. {@link #continued} does the same for a setup
 * pipeline's continued config, from {@code setup}.
 * Thread-safe.
 */
final class PlanStore {
    private final Jdbi jdbi;
    private final InstantSource clock;
    private final ResourceClasses classes;
    private final Runnable tasksQueued;

    PlanStore(Jdbi jdbi, ResourceClasses classes, InstantSource clock, Runnable tasksQueued) {
        this.classes = classes;
        this.tasksQueued = tasksQueued;
        this.jdbi = jdbi;
        this.clock = clock;
    }

    /**
     * Makes the pipeline {@code created} at {@code revision} with {@code plan}'s workflows ({@code running}) and jobs
     * ({@code blocked}, numbered in workflow then declaration order), and cancels the workflows it makes redundant
     * (unless {@code defaultBranch}, which may be null, is the pipeline's branch), remembering that default branch;
     * records the config ({@code source} as read, and as compiled) and the exact version each orb reference
     * ({@code circleci/node@5}) of {@code orbs} compiled with. A setup config's pipeline becomes {@code setup} instead, with a continuation key for its
     * workflow's jobs.
     *
     * @return false, writing nothing, when the pipeline was no longer pending
     */
    boolean created(UUID pipelineId, UUID projectId, String revision, String defaultBranch, Plan plan,
                    Map<String, String> orbs, String source) {
        return store(pipelineId, projectId, plan, orbs, source, (h, dao, now) -> {
            if (!settled(dao.moveState(pipelineId, PipelineState.PENDING.label(), (plan.setup() ? PipelineState.SETUP
                    : PipelineState.CREATED).label(), revision, now), pipelineId)) {
                return false;
            }
            if (plan.setup()) {
                String key = Continuations.newKey();
                dao.insertContinuation(pipelineId, Continuations.hash(key), key, now);
            }
            PlanDao.BranchAndNumber pipeline = dao.branchAndNumber(pipelineId);
            WorkflowCommands.cancelRedundant(h, projectId, pipeline.branch(), defaultBranch, pipeline.number(), now);
            if (defaultBranch != null) {
                dao.rememberDefaultBranch(projectId, defaultBranch);
            }
            return true;
        });
    }

    /**
     * Continues a {@code setup} pipeline with the workflows of the continued config's {@code plan}: it becomes
     * {@code created}.
     *
     * @return false, writing nothing, when the pipeline was not in setup
     */
    boolean continued(UUID pipelineId, UUID projectId, Plan plan, Map<String, String> orbs, String source) {
        return store(pipelineId, projectId, plan, orbs, source, (h, dao, now) -> dao.markContinued(pipelineId, now) == 1
                && settled(dao.moveState(pipelineId, PipelineState.SETUP.label(), PipelineState.CREATED.label(), null,
                now), pipelineId));
    }

    /** Errors a setup pipeline whose continued config cannot run; its key is used up. */
    boolean erroredInSetup(UUID pipelineId, List<PipelineError> errors) {
        return jdbi.inTransaction(h -> {
            PlanDao dao = h.attach(PlanDao.class);
            OffsetDateTime now = now();
            dao.markContinued(pipelineId, now);
            return settled(dao.markErrored(pipelineId, PipelineState.SETUP.label(), null, Json.write(errors), now),
                    pipelineId);
        });
    }

    /** What a store does first, in its transaction: false when the pipeline is not in the state to be stored. */
    private interface Settle {
        boolean settle(Handle h, PlanDao dao, OffsetDateTime now);
    }

    private boolean store(UUID pipelineId, UUID projectId, Plan plan, Map<String, String> orbs, String source,
                          Settle settle) {
        Stored stored = jdbi.inTransaction(h -> {
            PlanDao dao = h.attach(PlanDao.class);
            OffsetDateTime now = now();
            if (!settle.settle(h, dao, now)) {
                return Stored.NOTHING;
            }
            dao.storeConfig(pipelineId, plan.setup(), source, PlanYaml.write(plan));
            if (!orbs.isEmpty()) {
                dao.insertOrbs(pipelineId, List.copyOf(orbs.keySet()), List.copyOf(orbs.values()));
            }
            int jobCount = plan.workflows().stream().mapToInt(w -> w.jobs().size()).sum();
            long number = jobCount == 0 ? 0 : dao.claimJobNumbers(projectId, jobCount).orElseThrow(() ->
                    new IllegalStateException("project " + projectId + " of pipeline " + pipelineId + " is gone"))
                    - jobCount;
            List<UUID> workflows = new ArrayList<>();
            List<JobRow> jobs = new ArrayList<>();
            for (PlanWorkflow workflow : plan.workflows()) {
                UUID workflowId = UUID.randomUUID();
                dao.insertWorkflow(workflowId, pipelineId, workflow.name(), WorkflowStatus.RUNNING.word(), now);
                EventOutbox.workflowStarted(h, workflowId, now);
                workflows.add(workflowId);
                for (PlanJob job : workflow.jobs()) {
                    jobs.add(PlannedJobs.row(job, classes, UUID.randomUUID(), workflowId, projectId, ++number, now));
                }
            }
            if (!jobs.isEmpty()) {
                dao.insertJobs(jobs);
            }
            boolean queued = false;
            for (UUID workflowId : workflows) {
                queued |= WorkflowAdvancer.advance(h, workflowId, now);
            }
            return queued ? Stored.TASKS_QUEUED : Stored.CREATED;
        });
        if (stored == Stored.TASKS_QUEUED) {
            tasksQueued.run();
        }
        return stored != Stored.NOTHING;
    }

    private enum Stored { NOTHING, CREATED, TASKS_QUEUED }

    /**
     * Makes the pipeline {@code errored} with {@code errors}, and {@code revision} if the failure came after the
     * commit was known (null keeps what is stored).
     *
     * @return false, writing nothing, when the pipeline was no longer pending
     */
    boolean errored(UUID pipelineId, String revision, List<PipelineError> errors) {
        return jdbi.inTransaction(h -> settled(h.attach(PlanDao.class).markErrored(pipelineId,
                PipelineState.PENDING.label(), revision, Json.write(errors), now()), pipelineId));
    }

    private static boolean settled(int rows, UUID pipelineId) {
        if (rows > 1) {
            throw new IllegalStateException("a compare-and-set on pipeline " + pipelineId + " changed " + rows
                    + " rows");
        }
        return rows == 1;
    }

    private OffsetDateTime now() {
        return clock.instant().truncatedTo(ChronoUnit.MICROS).atOffset(ZoneOffset.UTC);
    }
}
