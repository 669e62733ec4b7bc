package dev.gantry.server.orchestrator;

import dev.gantry.server.http.ApiException;
import dev.gantry.server.http.RequestLocks;
import dev.gantry.server.notify.EventOutbox;
import dev.gantry.server.run.JobStatus;
import dev.gantry.server.run.TaskStatus;
import dev.gantry.server.run.WorkflowStatus;
import java.time.InstantSource;
import java.time.OffsetDateTime;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * What people do to workflows: cancel, rerun (all, from failed, or chosen jobs) and approve, each one transaction under the
 * workflow's row lock, so they and the orchestrator's advances see each other's results. Thread-safe.
 */
public final class WorkflowCommands {
    /** Whom the commands are recorded as made by (canceled_by, approved_by, a rerun's started_by): the API caller. */
    private final Jdbi jdbi;
    private final InstantSource clock;
    private final Runnable tasksQueued;

    public WorkflowCommands(Jdbi jdbi, InstantSource clock, Runnable tasksQueued) {
        this.jdbi = jdbi;
        this.clock = clock;
        this.tasksQueued = tasksQueued;
    }

    /**
     * Cancels the workflow: jobs that have not started become canceled at once, running ones are told to stop (their
     * agents hear it on the next heartbeat). Canceling a finished workflow changes nothing.
     *
     * @throws ApiException 404 if there is no such workflow
     */
    public void cancel(UUID workflowId, String caller) {
        jdbi.useTransaction(h -> {
            RequestLocks.bound(h);
            OrchestratorDao dao = h.attach(OrchestratorDao.class);
            OrchestratorDao.Workflow workflow = dao.lockWorkflow(workflowId).orElseThrow(() -> unknown(workflowId));
            if (!workflow.status().terminal()) {
                cancel(h, workflowId, Times.now(clock));
                dao.setWorkflowCanceledBy(workflowId, caller);
            }
        });
    }

    /** Cancels the (locked, unfinished) workflow within {@code h}'s transaction. */
    static void cancel(Handle h, UUID workflowId, OffsetDateTime now) {
        stopJobs(h, workflowId, null, now);
        h.attach(OrchestratorDao.class).setStatus(workflowId, WorkflowStatus.CANCELED.word(), true, now);
        EventOutbox.workflowCompleted(h, workflowId, now);
    }

    /**
     * Cancels one job, the job {@code number} of the project {@code slug}, as CircleCI's job cancel does: at once if
     * it has not started, else its agents are told to stop. Its dependents do not run; the rest of the workflow goes
     * on. Canceling a finished job changes nothing.
     *
     * @throws ApiException 404 if there is no such job
     */
    public void cancelJob(String organization, String name, long number, String caller) {
        boolean queued = jdbi.inTransaction(h -> {
            RequestLocks.bound(h);
            OrchestratorDao dao = h.attach(OrchestratorDao.class);
            OrchestratorDao.NumberedJob job = dao.findJob(organization, name, number).orElseThrow(() ->
                    ApiException.notFound("no job " + number + " in project gantry/" + organization + "/" + name));
            dao.lockWorkflow(job.workflowId()).orElseThrow(() -> unknown(job.workflowId()));
            OffsetDateTime now = Times.now(clock);
            stopJobs(h, job.workflowId(), job.id(), now);
            dao.setJobCanceledBy(job.id(), caller);
            return WorkflowAdvancer.advance(h, job.workflowId(), now);
        });
        if (queued) {
            tasksQueued.run();
        }
    }

    /** Stops the workflow's unfinished jobs, or only {@code jobId} if not null, within the workflow's lock. */
    private static void stopJobs(Handle h, UUID workflowId, UUID jobId, OffsetDateTime now) {
        OrchestratorDao dao = h.attach(OrchestratorDao.class);
        // Tasks before jobs, the order an agent's claim locks them in: the two cannot deadlock. A task a claim holds
        // is waited for; once that claim commits, the task runs and its job is told to stop just below.
        dao.cancelQueuedTasks(workflowId, jobId, now);
        EventOutbox.jobsCompleted(h, dao.cancelWaitingJobs(workflowId, jobId, now), now);
        dao.requestCancelOfRunningJobs(workflowId, jobId);
        // A running job whose other nodes had all ended is over now that its unclaimed ones are withdrawn.
        Map<UUID, List<TaskStatus>> tasks = new LinkedHashMap<>();
        for (OrchestratorDao.TaskOfRunningJob t : dao.tasksOfRunningJobs(workflowId, jobId)) {
            tasks.computeIfAbsent(t.jobId(), id -> new java.util.ArrayList<>()).add(t.taskStatus());
        }
        tasks.forEach((id, statuses) -> {
            if (statuses.stream().allMatch(TaskStatus::terminal)) {
                if (dao.finishRunningJob(id, TaskStatus.jobOutcome(statuses).word(), now) == 1) {
                    EventOutbox.jobCompleted(h, id, now);
                }
            }
        });
    }

    /**
     * What a rerun runs again, as CircleCI's rerun takes it: all of the workflow; the jobs that did not succeed
     * ({@code from_failed}); or the jobs {@code jobs} names with every job downstream of them, the rest carried over
     * as they ended, and with {@code sparse_tree} also without the jobs unconnected to those (neither upstream nor
     * downstream of them).
     */
    public record Rerun(boolean fromFailed, Set<UUID> jobs, boolean sparseTree) {
        public static final Rerun ALL = new Rerun(false, Set.of(), false);

        public Rerun {
            jobs = Set.copyOf(jobs);
            if (fromFailed && !jobs.isEmpty()) {
                throw ApiException.invalid("jobs", "from_failed and jobs cannot be combined; name the jobs to rerun, "
                        + "or rerun from failed");
            }
            if (sparseTree && jobs.isEmpty()) {
                throw ApiException.invalid("sparse_tree", "sparse_tree needs jobs: the jobs to rerun");
            }
        }
    }

    /**
     * Reruns a finished workflow as a new workflow of the same pipeline. Jobs that do not run again are carried over
     * as they were (their workspace layers with them); see {@link Rerun}.
     *
     * @return the new workflow's id
     * @throws ApiException 404 if there is no such workflow, 409 while it still runs, 400 for a rerun from failed of
     *                      a workflow where nothing failed or for jobs that are not the workflow's
     */
    public UUID rerun(UUID workflowId, Rerun how, String caller) {
        UUID rerun = UUID.randomUUID();
        boolean queued = jdbi.inTransaction(h -> {
            RequestLocks.bound(h);
            OrchestratorDao dao = h.attach(OrchestratorDao.class);
            OrchestratorDao.Workflow workflow = dao.lockWorkflow(workflowId).orElseThrow(() -> unknown(workflowId));
            if (!workflow.status().terminal()) {
                throw ApiException.conflict("workflow " + workflowId + " is " + workflow.status().word()
                        + "; rerun it once it has finished, or cancel it first");
            }
            Map<String, Advance.Job> latest = new LinkedHashMap<>();
            for (Advance.Job job : dao.jobs(workflowId)) {
                latest.put(job.name(), job); // jobs come in number order: a retry replaces its first attempt
            }
            if (how.fromFailed() && latest.values().stream().allMatch(j -> j.status() == JobStatus.SUCCESS)) {
                throw ApiException.badRequest("workflow " + workflowId + " has no failed jobs to rerun; "
                        + "send {\"from_failed\": false} to rerun all of it");
            }
            Set<String> again = again(workflowId, latest, how);
            Set<String> kept = how.sparseTree() ? connected(latest, again) : latest.keySet();
            OffsetDateTime now = Times.now(clock);
            dao.insertRerun(rerun, workflow.pipelineId(), workflow.name(), workflowId, now, caller);
            EventOutbox.workflowStarted(h, rerun, now);
            for (Advance.Job job : latest.values()) {
                if (!kept.contains(job.name())) {
                    continue;
                }
                boolean carried = !again.contains(job.name());
                dao.copyJob(UUID.randomUUID(), job.id(), rerun, dao.claimJobNumber(workflow.projectId()), 1,
                        carried ? job.status().word() : JobStatus.BLOCKED.word(), carried, now);
            }
            return WorkflowAdvancer.advance(h, rerun, now);
        });
        if (queued) {
            tasksQueued.run();
        }
        return rerun;
    }

    /** The names of the jobs that run again. */
    private static Set<String> again(UUID workflowId, Map<String, Advance.Job> latest, Rerun how) {
        if (how.jobs().isEmpty()) {
            return latest.values().stream().filter(j -> !how.fromFailed() || j.status() != JobStatus.SUCCESS)
                    .map(Advance.Job::name).collect(Collectors.toSet());
        }
        Map<UUID, String> names = new HashMap<>();
        latest.values().forEach(j -> names.put(j.id(), j.name()));
        Set<String> again = new HashSet<>();
        for (UUID id : how.jobs()) {
            String name = names.get(id);
            if (name == null) {
                throw ApiException.invalid("jobs", "job " + id + " is not a job of workflow " + workflowId
                        + " (or not its latest attempt)");
            }
            again.add(name);
        }
        // Downstream: whatever requires a job that runs again runs again, until nothing more does.
        for (boolean grew = true; grew; ) {
            grew = false;
            for (Advance.Job job : latest.values()) {
                if (!again.contains(job.name()) && job.requires().keySet().stream().anyMatch(again::contains)) {
                    grew = again.add(job.name());
                }
            }
        }
        return again;
    }

    /** {@code again} and every job they require, directly or not: a sparse tree leaves out the rest. */
    private static Set<String> connected(Map<String, Advance.Job> latest, Set<String> again) {
        Set<String> kept = new HashSet<>(again);
        Deque<String> upstream = new ArrayDeque<>(again);
        while (!upstream.isEmpty()) {
            Advance.Job job = latest.get(upstream.pop());
            for (String required : job == null ? Set.<String>of() : job.requires().keySet()) {
                if (kept.add(required)) {
                    upstream.push(required);
                }
            }
        }
        return kept;
    }

    /**
     * Approves the approval job {@code approvalRequestId} (its job id) of the workflow; its dependents may start.
     *
     * @throws ApiException 404 if the workflow has no such approval job, 409 if it is not on hold
     */
    public void approve(UUID workflowId, UUID approvalRequestId, String caller) {
        boolean queued = jdbi.inTransaction(h -> {
            RequestLocks.bound(h);
            OrchestratorDao dao = h.attach(OrchestratorDao.class);
            dao.lockWorkflow(workflowId).orElseThrow(() -> unknown(workflowId));
            String status = dao.approvalStatus(workflowId, approvalRequestId).orElseThrow(() ->
                    ApiException.notFound("workflow " + workflowId + " has no approval request "
                            + approvalRequestId));
            OffsetDateTime now = Times.now(clock);
            if (dao.approve(workflowId, approvalRequestId, now, caller) != 1) {
                throw ApiException.conflict("approval request " + approvalRequestId + " is " + status
                        + ", not on_hold; only a job on hold can be approved");
            }
            EventOutbox.jobCompleted(h, approvalRequestId, now);
            return WorkflowAdvancer.advance(h, workflowId, now);
        });
        if (queued) {
            tasksQueued.run();
        }
    }

    /**
     * Within the transaction that plans pipeline {@code number} of a project on {@code branch}: cancels the running
     * workflows of the project's older pipelines on that branch, if the project auto-cancels redundant workflows.
     * As on CircleCI, never on the repository's default branch ({@code defaultBranch}, null when unknown), where
     * every commit's pipeline (a deployment, say) should finish.
     *
     * @return how many workflows were canceled
     */
    public static int cancelRedundant(Handle h, UUID projectId, String branch, String defaultBranch, long number,
                                      OffsetDateTime now) {
        OrchestratorDao dao = h.attach(OrchestratorDao.class);
        if (branch == null || branch.equals(defaultBranch) || !dao.autoCancels(projectId)) {
            return 0;
        }
        int canceled = 0;
        for (UUID workflowId : dao.redundantWorkflows(projectId, branch, number)) {
            // Locked in id order, as listed: two plans canceling overlapping sets cannot deadlock.
            OrchestratorDao.Workflow workflow = dao.lockWorkflow(workflowId).orElseThrow();
            if (!workflow.status().terminal()) {
                cancel(h, workflowId, now);
                canceled++;
            }
        }
        return canceled;
    }

    private static ApiException unknown(UUID workflowId) {
        return ApiException.notFound("no workflow " + workflowId);
    }
}
