package dev.gantry.server.agent;

import dev.gantry.queue.Queues;
import dev.gantry.server.run.Orchestration;
import dev.gantry.server.storage.OutputStore;
import dev.gantry.server.usage.UsageLedger;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives up tasks whose agent stopped heartbeating. Every {@link #EVERY} it finds running tasks whose lease ran out.
 * One whose agent never accepted it (never renewed its lease) goes back to the queue. For each other, in one
 * transaction: the task moves to {@code infrastructure_fail} by compare-and-set (a heartbeat that
 * came meanwhile wins), a line in the node's output says the agent was lost, the task is charged for the time it ran
 * ({@link UsageLedger#charge}), and if that was the job's last task the job settles and the workflow's advance is requested ({@link JobSettlement}). The orchestrator retries the job.
 *
 * <p>Several server processes may sweep the same database: the compare-and-set lets one of them give up each task.
 * Each sweep that reaches the database marks this server's row of {@code gantry.lease_sweep}. {@link #start()} once,
 * {@link #close()} once. A sweep that fails (the database is away) is logged, and the next one that gets through
 * renews every running lease for two lease timeouts instead of giving any up, as the first sweep after a start does,
 * unless another server swept within {@link #ALIVE_WITHIN}: agents could not renew their leases while no server could
 * reach the database, so neither a restart nor an outage of the database is taken for lost agents; beside a server
 * that kept sweeping they could, and a renewal would only delay finding the agents that really died. An agent late
 * with its result after all can still complete (see {@link Leases#complete}).
 */
final class LeaseSweeper implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LeaseSweeper.class);

    /** How often expired leases are looked for. */
    static final Duration EVERY = Duration.ofSeconds(1);
    /** The most tasks one sweep gives up; the next sweep takes the rest. */
    static final int BATCH = 100;
    /**
     * How recent another server's sweep must be for this server to count it as running: three sweeps' time. A live
     * server late by more than that only brings back the renewal, which is the safe side.
     */
    static final Duration ALIVE_WITHIN = EVERY.multipliedBy(3);

    private final Jdbi jdbi;
    private final Queues queues;
    private final OutputStore output;
    private final InstantSource clock;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("agent-lease-sweeper").daemon().factory());

    private final Duration leaseTimeout;
    private final TaskWakeups wakeups;
    private final UsageLedger usage;
    private final String server;
    /**
     * Set at the start and after a failed sweep: the next sweep renews every running lease instead, unless another
     * server swept meanwhile.
     */
    private volatile boolean renewFirst;

    /** @param server this server's instance id, its row in {@code gantry.lease_sweep} */
    LeaseSweeper(Jdbi jdbi, Queues queues, OutputStore output, InstantSource clock, Duration leaseTimeout,
                 TaskWakeups wakeups, UsageLedger usage, String server) {
        this.server = server;
        this.wakeups = wakeups;
        this.usage = usage;
        this.jdbi = jdbi;
        this.queues = queues;
        this.output = output;
        this.clock = clock;
        this.leaseTimeout = leaseTimeout;
    }

    /**
     * Starts sweeping. Unless another server is sweeping, the first sweep gives every running task a fresh lease
     * before it looks for expired ones: while no server ran, no agent could renew, and a restart must not turn its own
     * downtime into lost agents (and retries that overlap jobs still running). An agent that really is gone is found
     * two leases later.
     */
    void start() {
        renewFirst = true;
        timer.scheduleWithFixedDelay(this::sweepLogged, 0, EVERY.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void sweepLogged() {
        try {
            sweep();
        } catch (RuntimeException e) {
            // The database is away, most likely: no heartbeat gets through either, so the next sweep that can
            // reach it first gives every running task a fresh lease, as after a restart.
            if (!renewFirst) {
                LOG.warn("Sweeping expired agent leases failed; trying again every {} ms, and the running tasks get "
                        + "a fresh lease once a sweep gets through", EVERY.toMillis(), e);
            }
            renewFirst = true;
        }
    }

    /** One sweep; returns how many tasks it gave up. */
    int sweep() {
        Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
        boolean othersSweeping = jdbi.inTransaction(h -> {
            SweepDao sweeps = h.attach(SweepDao.class);
            sweeps.mark(server);
            return sweeps.othersSweptWithin(server, ALIVE_WITHIN.toMillis() / 1000.0);
        });
        if (renewFirst) {
            renewFirst = false;
            if (!othersSweeping) {
                // Two leases: every agent comes back at once, backing off, and its heartbeats queue behind the others'.
                Duration grace = leaseTimeout.multipliedBy(2);
                int renewed = jdbi.withExtension(TaskDao.class, tasks -> tasks.renewAllRunning(
                        now.plus(grace).atOffset(ZoneOffset.UTC)));
                if (renewed > 0) {
                    LOG.warn("Gave the {} running tasks a fresh lease of {} ms: no agent could renew one while no "
                            + "server swept (this one was down or could not reach the database, and no other swept)",
                            renewed, grace.toMillis());
                }
                return 0;
            }
            LOG.info("Another server swept agent leases within the last {} ms: running tasks keep their leases, "
                    + "their agents could renew them there", ALIVE_WITHIN.toMillis());
        }
        List<TaskDao.Expired> expired = jdbi.withExtension(TaskDao.class, tasks -> tasks.expired(
                now.atOffset(ZoneOffset.UTC), BATCH));
        int lost = 0;
        boolean requeued = false;
        for (TaskDao.Expired task : expired) {
            if (!task.accepted()) {
                requeued |= requeue(task.key(), now);
            } else if (giveUp(task.key(), now)) {
                lost++;
            }
        }
        if (requeued) {
            wakeups.tasksQueued();
        }
        return lost;
    }

    /**
     * A task whose agent never renewed its lease never ran there (the agent died during its long poll, or never got
     * the answer): it goes back to the queue where it was, and the job keeps its one retry.
     */
    private boolean requeue(TaskKey task, Instant now) {
        return jdbi.inTransaction(h -> {
            TaskDao tasks = h.attach(TaskDao.class);
            var workflowId = tasks.lockJob(task.jobId());
            if (workflowId.isEmpty()) {
                return false;
            }
            if (tasks.cancelRequested(task.jobId())) {
                // Found by the deterministic simulation: no claim takes a task of a job being canceled, so queued
                // again it would wait forever, and its job (running, then queued) with it, in a canceled workflow.
                // It ends canceled instead, and the job settles.
                if (tasks.withdraw(task.jobId(), task.nodeIndex(), now.atOffset(ZoneOffset.UTC)) == 1) {
                    ended(h, task, workflowId.get(), now);
                    LOG.warn("Task {} of a canceled job was never accepted by its agent; canceled", task);
                }
                return false;
            }
            if (tasks.requeue(task.jobId(), task.nodeIndex(), now.atOffset(ZoneOffset.UTC)) != 1) {
                return false;
            }
            tasks.requeueJob(task.jobId());
            LOG.warn("Task {} was never accepted by the agent it was given to; queued again", task);
            return true;
        });
    }

    /**
     * After a task ended here: charges it (the rule decides: one given up after its agent had it ran on a machine,
     * one its agent never accepted did not), settles its job if that was its last task, and asks for the workflow's
     * advance.
     */
    private void ended(Handle h, TaskKey task, UUID workflowId, Instant now) {
        usage.charge(h, task.jobId(), task.nodeIndex());
        if (JobSettlement.afterTaskEnded(h, task.jobId(), now) != null) {
            Orchestration.requestAdvance(h, queues, workflowId);
        }
    }

    private boolean giveUp(TaskKey task, Instant now) {
        return jdbi.inTransaction(h -> {
            TaskDao tasks = h.attach(TaskDao.class);
            var workflowId = tasks.lockJob(task.jobId());
            if (workflowId.isEmpty()
                    || tasks.markLost(task.jobId(), task.nodeIndex(), now.atOffset(ZoneOffset.UTC)) != 1) {
                return false;
            }
            note(output.within(h), task, now);
            ended(h, task, workflowId.get(), now);
            LOG.warn("Task {} lost its agent (no heartbeat before its lease ran out); marked infrastructure_fail",
                    task);
            return true;
        });
    }

    /**
     * Written before the commit so that a reader following the output sees it before the task's end: in the files at
     * once (should the commit fail, the next sweep gives the task up again and writes a second line), in the database
     * with the commit.
     */
    private static void note(OutputStore output, TaskKey task, Instant now) {
        try {
            output.appendNote(task.jobId(), task.nodeIndex(), "\n[gantry] " + now + ": the agent running this task "
                    + "was lost (no heartbeat before its lease ran out); the task ended as infrastructure_fail\n");
        } catch (IOException e) {
            LOG.warn("Cannot note the lost agent in the output of task {}", task, e);
        }
    }

    @Override
    public void close() {
        timer.shutdown();
        try {
            timer.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
