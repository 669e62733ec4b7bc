package dev.gantry.server.orchestrator;

import dev.gantry.server.http.ApiException;
import dev.gantry.server.run.JobStatus;
import dev.gantry.server.run.TaskStatus;
import dev.gantry.server.run.WorkflowStatus;
import java.time.InstantSource;
import java.time.OffsetDateTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * What people do to workflows: cancel, rerun (all or from failed) and approve, each one transaction under the
 * workflow's row lock, so they and the orchestrator's advances see each other's results. Thread-safe.
 */
public final class WorkflowCommands {
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
    public void cancel(UUID workflowId) {
        jdbi.useTransaction(h -> {
            OrchestratorDao dao = h.attach(OrchestratorDao.class);
            OrchestratorDao.Workflow workflow = dao.lockWorkflow(workflowId).orElseThrow(() -> unknown(workflowId));
            if (!workflow.status().terminal()) {
                cancel(h, workflowId, Times.now(clock));
            }
        });
    }

    /** Cancels the (locked, unfinished) workflow within {@code h}'s transaction. */
    static void cancel(Handle h, UUID workflowId, OffsetDateTime now) {
        OrchestratorDao dao = h.attach(OrchestratorDao.class);
        // Tasks before jobs, the order an agent's claim locks them in: the two cannot deadlock. A task a claim holds
        // is waited for; once that claim commits, the task runs and its job is told to stop just below.
        dao.cancelQueuedTasks(workflowId, now);
        dao.cancelWaitingJobs(workflowId, now);
        dao.requestCancelOfRunningJobs(workflowId);
        // A running job whose other nodes had all ended is over now that its unclaimed ones are withdrawn.
        Map<UUID, List<TaskStatus>> tasks = new LinkedHashMap<>();
        for (OrchestratorDao.TaskOfRunningJob t : dao.tasksOfRunningJobs(workflowId)) {
            tasks.computeIfAbsent(t.jobId(), id -> new java.util.ArrayList<>()).add(t.taskStatus());
        }
        tasks.forEach((jobId, statuses) -> {
            if (statuses.stream().allMatch(TaskStatus::terminal)) {
                dao.finishRunningJob(jobId, TaskStatus.jobOutcome(statuses).word(), now);
            }
        });
        dao.setStatus(workflowId, WorkflowStatus.CANCELED.word(), true, now);
    }

    /**
     * Reruns a finished workflow as a new workflow of the same pipeline. From failed, the jobs that succeeded are
     * carried over as they were (their workspace layers with them) and only the others run again.
     *
     * @return the new workflow's id
     * @throws ApiException 404 if there is no such workflow, 409 while it still runs, 400 for a rerun from failed of
     *                      a workflow where nothing failed
     */
    public UUID rerun(UUID workflowId, boolean fromFailed) {
        UUID rerun = UUID.randomUUID();
        boolean queued = jdbi.inTransaction(h -> {
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
            if (fromFailed && latest.values().stream().allMatch(j -> j.status() == JobStatus.SUCCESS)) {
                throw ApiException.badRequest("workflow " + workflowId + " has no failed jobs to rerun; "
                        + "send {\"from_failed\": false} to rerun all of it");
            }
            OffsetDateTime now = Times.now(clock);
            dao.insertRerun(rerun, workflow.pipelineId(), workflow.name(), workflowId, now);
            for (Advance.Job job : latest.values()) {
                boolean carried = fromFailed && job.status() == JobStatus.SUCCESS;
                dao.copyJob(UUID.randomUUID(), job.id(), rerun, dao.claimJobNumber(workflow.projectId()), 1,
                        carried ? JobStatus.SUCCESS.word() : JobStatus.BLOCKED.word(), carried, now);
            }
            return WorkflowAdvancer.advance(h, rerun, now);
        });
        if (queued) {
            tasksQueued.run();
        }
        return rerun;
    }

    /**
     * Approves the approval job {@code approvalRequestId} (its job id) of the workflow; its dependents may start.
     *
     * @throws ApiException 404 if the workflow has no such approval job, 409 if it is not on hold
     */
    public void approve(UUID workflowId, UUID approvalRequestId) {
        boolean queued = jdbi.inTransaction(h -> {
            OrchestratorDao dao = h.attach(OrchestratorDao.class);
            dao.lockWorkflow(workflowId).orElseThrow(() -> unknown(workflowId));
            String status = dao.approvalStatus(workflowId, approvalRequestId).orElseThrow(() ->
                    ApiException.notFound("workflow " + workflowId + " has no approval request "
                            + approvalRequestId));
            OffsetDateTime now = Times.now(clock);
            if (dao.approve(workflowId, approvalRequestId, now) != 1) {
                throw ApiException.conflict("approval request " + approvalRequestId + " is " + status
                        + ", not on_hold; only a job on hold can be approved");
            }
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
