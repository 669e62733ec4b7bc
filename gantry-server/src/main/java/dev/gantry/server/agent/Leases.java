package dev.gantry.server.agent;

import dev.gantry.server.http.ApiException;
import dev.gantry.server.orchestrator.WorkflowAdvancer;
import dev.gantry.server.run.TaskStatus;
import dev.gantry.server.run.WorkflowStatus;
import dev.gantry.server.usage.UsageLedger;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * The lease fence: heartbeats renew a lease, every other call about a task must present the task's current lease
 * (else 409), and a completion ends the task by compare-and-set, charging it in the same transaction
 * ({@link UsageLedger#charge}). Thread-safe.
 */
final class Leases {
    /** How stale an agent's last-seen time may get before a heartbeat writes it again. */
    static final Duration SEEN_GRAIN = Duration.ofSeconds(1);

    private final Jdbi jdbi;
    private final TaskWakeups wakeups;
    private final AgentSettings settings;
    private final InstantSource clock;
    private final UsageLedger usage;

    Leases(Jdbi jdbi, TaskWakeups wakeups, AgentSettings settings, InstantSource clock, UsageLedger usage) {
        this.jdbi = jdbi;
        this.usage = usage;
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
            h.attach(AgentDao.class).touch(beat.agentId(), now.atOffset(ZoneOffset.UTC),
                    now.minus(SEEN_GRAIN).atOffset(ZoneOffset.UTC));
            return beat.cancelRequested();
        });
    }

    /**
     * The running task held with {@code lease}, locked in {@code h}'s transaction against ending until it commits.
     *
     * @throws ApiException 409 when the lease is not the task's current one
     */
    TaskDao.Leased require(Handle h, TaskKey task, UUID lease) {
        TaskDao tasks = h.attach(TaskDao.class);
        TaskDao.Leased leased = tasks.leased(task.jobId(), task.nodeIndex(), lease).orElseThrow(() -> lost(task));
        // Any call with the lease proves the agent got the task, as a heartbeat does, and renews the lease as the
        // heartbeat would: a claim answered late (the server paused after committing it) can carry a lease that ran
        // out meanwhile, and the sweeper would give up a task that has only just started.
        Instant now = now();
        tasks.accept(task.jobId(), task.nodeIndex(), now.plus(settings.leaseTimeout()).atOffset(ZoneOffset.UTC),
                now.atOffset(ZoneOffset.UTC));
        return leased;
    }

    /** {@link #require} in a transaction of its own, for calls that then stream a body outside any transaction. */
    TaskDao.Leased require(TaskKey task, UUID lease) {
        return jdbi.inTransaction(h -> require(h, task, lease));
    }

    /**
     * What a completion records in the transaction that ends the task, only if its lease ended it; {@code late} when
     * the task had been given up as lost and this completion came after (its output then follows the note the
     * sweeper left, whatever offsets the agent counted).
     */
    interface LastReports {
        void record(Handle h, boolean late);
    }

    /** How a completion was taken. */
    enum Completed {
        /** It ended the task. */
        ENDED,
        /** The task had ended under this lease already: the agent's earlier completion landed and its answer was lost. */
        REPEATED,
        /**
         * The task had been given up as lost (its lease ran out while the agent or the database was away) and no
         * other attempt of the job had started: the agent's outcome replaced {@code infrastructure_fail}.
         */
        LATE,
        /** It came too late to count (another attempt had started, or the workflow had ended): kept, not applied. */
        SUPERSEDED
    }

    /**
     * Ends the task with {@code status} and records {@code last} (the reports the completion carries); when it was
     * the job's last task, settles the job and advances the workflow, all in one transaction (waking the claims after
     * the commit if that queued tasks). A repeat with the same lease after the task was completed changes nothing
     * and records nothing. After the task was given up as lost, a completion is taken late if it can still count
     * (see {@link Completed}).
     *
     * @throws ApiException 409 when {@code lease} is not the task's lease, 404 when there is no such task
     */
    Completed complete(TaskKey task, UUID lease, TaskStatus status, LastReports last) {
        Instant now = now();
        OffsetDateTime at = now.atOffset(ZoneOffset.UTC);
        Completed[] how = new Completed[1];
        boolean queued = jdbi.inTransaction(h -> {
            TaskDao tasks = h.attach(TaskDao.class);
            // The workflow first, then the job, as cancel and approve take them: the job's end advances the workflow
            // in this transaction.
            UUID workflowId = tasks.lockWorkflowOfJob(task.jobId()).orElseThrow(() -> unknown(task));
            tasks.lockJob(task.jobId());
            if (tasks.finish(task.jobId(), task.nodeIndex(), lease, status.word(), at) == 1) {
                // After the compare-and-set, which proves the lease: all of it commits together in any case.
                how[0] = Completed.ENDED;
                last.record(h, false);
                usage.charge(h, task.jobId(), task.nodeIndex());
                return JobSettlement.afterTaskEnded(h, task.jobId(), now) != null
                        && WorkflowAdvancer.advance(h, workflowId, at);
            }
            TaskDao.TaskState state = tasks.state(task.jobId(), task.nodeIndex()).orElseThrow(() -> unknown(task));
            TaskStatus ended = TaskStatus.ofWord(state.status());
            if (!lease.equals(state.lease()) || !ended.terminal()) {
                throw lost(task);
            }
            if (!state.givenUp() || state.supersededStatus() != null) {
                // Ended by a completion under this lease: the agent's earlier one landed and its answer was lost.
                // Only an infrastructure_fail the agent reported cannot be followed by another outcome.
                if (ended == TaskStatus.INFRASTRUCTURE_FAIL && status != ended && state.supersededStatus() == null) {
                    throw lost(task);
                }
                how[0] = Completed.REPEATED;
                return false;
            }
            // Given up by the sweeper: the agent (or the database) was away longer than its lease.
            if (status == TaskStatus.INFRASTRUCTURE_FAIL) {
                how[0] = Completed.REPEATED;
                return false;
            }
            if (!canTakeLate(tasks, task)) {
                tasks.supersede(task.jobId(), task.nodeIndex(), lease, status.word(), at);
                how[0] = Completed.SUPERSEDED;
                return false;
            }
            tasks.finishLate(task.jobId(), task.nodeIndex(), lease, status.word(), at);
            how[0] = Completed.LATE;
            last.record(h, true);
            // Charged when the sweeper gave it up, unless charging was off then: the rule bills up to the give-up.
            usage.charge(h, task.jobId(), task.nodeIndex());
            List<TaskStatus> statuses = tasks.statuses(task.jobId()).stream().map(TaskStatus::ofWord).toList();
            if (statuses.stream().anyMatch(s -> !s.terminal())) {
                return false; // the job settles when its last node ends
            }
            tasks.resettleJob(task.jobId(), TaskStatus.jobOutcome(statuses).word(), at);
            return WorkflowAdvancer.advance(h, workflowId, at);
        });
        if (queued) {
            wakeups.tasksQueued();
        }
        return how[0];
    }

    /**
     * Whether a late completion can still decide the job: it is not being canceled, its workflow has not ended, no
     * other node of it was lost too (the job is retried anyway), and no retry of it has started a task. A retry that
     * has not is withdrawn here (its tasks are locked first, so no claim starts one meanwhile): the late result makes
     * it unneeded.
     */
    private static boolean canTakeLate(TaskDao tasks, TaskKey task) {
        if (tasks.cancelRequested(task.jobId())
                || WorkflowStatus.ofWord(tasks.workflowStatus(task.jobId())).terminal()
                || tasks.otherNodesLost(task.jobId(), task.nodeIndex())) {
            return false;
        }
        List<UUID> retries = tasks.retries(task.jobId());
        for (UUID retry : retries) {
            if (tasks.lockTasks(retry).stream().anyMatch(s -> !s.equals("queued"))) {
                return false;
            }
        }
        retries.forEach(tasks::withdrawRetry);
        return true;
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
