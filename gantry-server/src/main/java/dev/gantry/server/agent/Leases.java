package dev.gantry.server.agent;

import dev.gantry.server.http.ApiException;
import dev.gantry.server.orchestrator.WorkflowAdvancer;
import dev.gantry.server.run.TaskStatus;
import java.time.Instant;
import java.time.InstantSource;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * The lease fence: heartbeats renew a lease, every other call about a task must present the task's current lease
 * (else 409), and a completion ends the task by compare-and-set. Thread-safe.
 */
final class Leases {
    private final Jdbi jdbi;
    private final TaskWakeups wakeups;
    private final AgentSettings settings;
    private final InstantSource clock;

    Leases(Jdbi jdbi, TaskWakeups wakeups, AgentSettings settings, InstantSource clock) {
        this.jdbi = jdbi;
        this.wakeups = wakeups;
        this.settings = settings;
        this.clock = clock;
    }

    /**
     * Renews the lease; returns whether the job is being canceled.
     *
     * @throws ApiException 409 when {@code lease} is not the running task's current lease
     */
    boolean heartbeat(TaskKey task, UUID lease) {
        Instant now = now();
        return jdbi.inTransaction(h -> {
            TaskDao.Heartbeat beat = h.attach(TaskDao.class).heartbeat(task.jobId(), task.nodeIndex(), lease,
                    now.plus(settings.leaseTimeout()).atOffset(ZoneOffset.UTC), now.atOffset(ZoneOffset.UTC))
                    .orElseThrow(() -> lost(task));
            h.attach(AgentDao.class).seen(beat.agentId(), now.atOffset(ZoneOffset.UTC));
            return beat.cancelRequested();
        });
    }

    /**
     * The running task held with {@code lease}, locked in {@code h}'s transaction against ending until it commits.
     *
     * @throws ApiException 409 when the lease is not the task's current one
     */
    static TaskDao.Leased require(Handle h, TaskKey task, UUID lease) {
        TaskDao tasks = h.attach(TaskDao.class);
        TaskDao.Leased leased = tasks.leased(task.jobId(), task.nodeIndex(), lease).orElseThrow(() -> lost(task));
        // Any call with the lease proves the agent got the task, as a heartbeat does.
        tasks.accept(task.jobId(), task.nodeIndex());
        return leased;
    }

    /** {@link #require} in a transaction of its own, for calls that then stream a body outside any transaction. */
    TaskDao.Leased require(TaskKey task, UUID lease) {
        return jdbi.inTransaction(h -> require(h, task, lease));
    }

    /** What a completion records in the transaction that ends the task, only if its lease ended it. */
    interface LastReports {
        void record(Handle h);
    }

    /**
     * Ends the task with {@code status} and records {@code last} (the reports the completion carries); when it was
     * the job's last task, settles the job and advances the workflow, all in one transaction (waking the claims after
     * the commit if that queued tasks). A repeat with the same lease after the task was completed changes nothing
     * and records nothing; after it was given up as lost, it is 409.
     *
     * @throws ApiException 409 when {@code lease} is not the task's lease, 404 when there is no such task
     */
    void complete(TaskKey task, UUID lease, TaskStatus status, LastReports last) {
        Instant now = now();
        boolean queued = jdbi.inTransaction(h -> {
            TaskDao tasks = h.attach(TaskDao.class);
            // The workflow first, then the job, as cancel and approve take them: the job's end advances the workflow
            // in this transaction.
            UUID workflowId = tasks.lockWorkflowOfJob(task.jobId()).orElseThrow(() -> unknown(task));
            tasks.lockJob(task.jobId());
            int finished = tasks.finish(task.jobId(), task.nodeIndex(), lease, status.word(),
                    now.atOffset(ZoneOffset.UTC));
            if (finished == 1) {
                // After the compare-and-set, which proves the lease: all of it commits together in any case.
                last.record(h);
                return JobSettlement.afterTaskEnded(h, task.jobId(), now) != null
                        && WorkflowAdvancer.advance(h, workflowId, now.atOffset(ZoneOffset.UTC));
            }
            TaskDao.TaskState state = tasks.state(task.jobId(), task.nodeIndex()).orElseThrow(() -> unknown(task));
            // Ended by a completion under this lease, not given up by the sweeper: the agent's earlier completion
            // landed and its answer was lost. An infrastructure_fail may be the sweeper's; a repeat saying the same
            // changes nothing either way, so it is a repeat too.
            TaskStatus ended = TaskStatus.ofWord(state.status());
            boolean repeat = lease.equals(state.lease()) && ended.terminal()
                    && (ended != TaskStatus.INFRASTRUCTURE_FAIL || status == TaskStatus.INFRASTRUCTURE_FAIL);
            if (!repeat) {
                throw lost(task);
            }
            return false;
        });
        if (queued) {
            wakeups.tasksQueued();
        }
    }

    static ApiException lost(TaskKey task) {
        return ApiException.conflict("the lease is not task " + task + "'s current lease (the task was given up as "
                + "lost, or has ended); stop the task and send nothing more about it");
    }

    static ApiException unknown(TaskKey task) {
        return ApiException.notFound("no task " + task);
    }


    private Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MICROS);
    }
}
