package dev.gantry.server.orchestrator;

import dev.gantry.queue.Message;
import dev.gantry.queue.Queues;
import dev.gantry.queue.Worker;
import dev.gantry.server.notify.EventOutbox;
import dev.gantry.server.run.JobStatus;
import dev.gantry.server.run.Orchestration;
import java.time.InstantSource;
import java.time.OffsetDateTime;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The orchestrator's worker: takes {@link Orchestration#ADVANCE_QUEUE} messages and, for each, applies
 * {@link Advance#decide} to the workflow under its row lock in one transaction: unblocks jobs (queuing one task per
 * parallel node), retries lost jobs as new jobs that run only the nodes that did not succeed (the others are carried
 * over, see {@link OrchestratorDao#queueRetryTasks}), and settles the workflow's status. After the commit it tells
 * the agents' claim loop that tasks are waiting. A crash before the commit leaves the message to be delivered again.
 */
public final class WorkflowAdvancer implements Worker.Handler {
    private static final Logger LOG = LoggerFactory.getLogger(WorkflowAdvancer.class);

    private final Jdbi jdbi;
    private final InstantSource clock;
    private final Runnable tasksQueued;

    /** @param tasksQueued called after a commit that queued tasks, to wake agents waiting for work */
    public WorkflowAdvancer(Jdbi jdbi, InstantSource clock, Runnable tasksQueued) {
        this.jdbi = jdbi;
        this.clock = clock;
        this.tasksQueued = tasksQueued;
    }

    /** The name of this process's worker, {@code orchestrator@INSTANCE}. */
    public static String workerName(String instance) {
        return "orchestrator@" + instance;
    }

    /**
     * Starts a worker on the advance queue, named for the server {@code instance}, claiming only as much as
     * {@code gate} admits (dispatch's self-pause).
     */
    public static Worker start(Queues queues, WorkflowAdvancer advancer, String instance, Worker.ClaimGate gate) {
        return Worker.start(queues, Orchestration.ADVANCE_QUEUE, advancer,
                Worker.Options.named(workerName(instance), 4).withGate(gate));
    }

    @Override
    public void handle(Message message) {
        UUID workflowId = UUID.fromString(message.payload());
        boolean queued = jdbi.inTransaction(h -> advance(h, workflowId, Times.now(clock)));
        if (queued) {
            tasksQueued.run();
        }
    }

    /**
     * Advances the workflow within {@code h}'s transaction; true if tasks were queued, and then the caller must wake
     * the agents after its commit. The planner calls it for the workflows it has just stored, in their transaction:
     * no one else can see them yet, so that needs no message.
     */
    public static boolean advance(Handle h, UUID workflowId, OffsetDateTime now) {
        OrchestratorDao dao = h.attach(OrchestratorDao.class);
        OrchestratorDao.Workflow workflow = dao.lockWorkflow(workflowId).orElse(null);
        if (workflow == null) {
            LOG.warn("Advance of workflow {} skipped: there is no such workflow", workflowId);
            return false;
        }
        Advance.Decision decision = Advance.decide(workflow.status(), dao.jobs(workflowId));
        if (!decision.changes(workflow.status())) {
            return false;
        }
        boolean queued = false;
        for (Advance.Transition t : decision.transitions()) {
            if (dao.unblock(t.jobId(), t.to().word(), now) != 1) {
                throw new IllegalStateException("job " + t.jobId() + " left 'blocked' under its workflow's lock");
            }
            if (t.to() == JobStatus.QUEUED) {
                dao.queueTasks(t.jobId(), now);
                queued = true;
            }
        }
        for (Advance.Job lost : decision.retries()) {
            UUID retry = UUID.randomUUID();
            dao.copyJob(retry, lost.id(), workflowId, dao.claimJobNumber(workflow.projectId()), 2,
                    JobStatus.QUEUED.word(), false, now);
            dao.queueRetryTasks(retry, lost.id(), now);
            queued = true;
            LOG.info("Job {} of workflow {} lost its agent; retrying its nodes that did not succeed as job {}",
                    lost.name(), workflowId, retry);
        }
        if (decision.status() != workflow.status()) {
            dao.setStatus(workflowId, decision.status().word(), decision.status().terminal(), now);
            if (decision.status().terminal()) {
                EventOutbox.workflowCompleted(h, workflowId, now);
            }
        }
        return queued;
    }
}
