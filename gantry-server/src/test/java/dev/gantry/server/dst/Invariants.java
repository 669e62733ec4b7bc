package dev.gantry.server.dst;

import dev.gantry.scheduler.ResourceClasses;
import dev.gantry.server.run.JobStatus;
import dev.gantry.server.usage.Charge;
import dev.gantry.server.usage.TaskRecord;
import dev.gantry.server.usage.UsageRule;
import dev.gantry.server.run.WorkflowStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

import static dev.gantry.server.run.JobStatus.BLOCKED;
import static dev.gantry.server.run.JobStatus.CANCELED;
import static dev.gantry.server.run.JobStatus.FAILED;
import static dev.gantry.server.run.JobStatus.INFRASTRUCTURE_FAIL;
import static dev.gantry.server.run.JobStatus.NOT_RUN;
import static dev.gantry.server.run.JobStatus.ON_HOLD;
import static dev.gantry.server.run.JobStatus.QUEUED;
import static dev.gantry.server.run.JobStatus.RUNNING;
import static dev.gantry.server.run.JobStatus.SUCCESS;

/**
 * The invariants checked after every event of a seed, on the {@link World} the database shows and on what the
 * simulated clients know (the ledger: which triggers were answered with which pipeline, which agent holds which
 * lease). Remembers what it saw last, so that it can check each change, not only each state.
 *
 * <p>Exactly-once side effects are a list of {@link ExactlyOnce} checks: the usage ledger's charges among them
 * ({@link #chargedOnce}); notifications, when their tables come, are one more entry in {@link #EXACTLY_ONCE}.
 */
final class Invariants {
    /** What a client was told: the trigger with this key was answered with this pipeline. */
    record Answered(String key, UUID pipelineId) {
    }

    /** An agent holding a task under a lease, as the agent believes. */
    record Holder(String agent, UUID jobId, int node, UUID lease) {
    }

    /** A side effect that must be recorded exactly once; returns a violation or null. */
    interface ExactlyOnce {
        String check(World now, Invariants seen);
    }

    /** Legal job status changes, from the words of {@link JobStatus}; terminal statuses have none. */
    static final Map<JobStatus, Set<JobStatus>> JOB_MOVES = Map.of(
            BLOCKED, EnumSet.of(QUEUED, ON_HOLD, SUCCESS, NOT_RUN, CANCELED),
            // A claim starts the job; a cancel ends it before any task started.
            QUEUED, EnumSet.of(RUNNING, CANCELED),
            // Back to queued only when the agent never accepted its task (LeaseSweeper's requeue).
            RUNNING, EnumSet.of(QUEUED, SUCCESS, FAILED, CANCELED, INFRASTRUCTURE_FAIL),
            ON_HOLD, EnumSet.of(SUCCESS, CANCELED),
            // The lease sweeper's verdict, replaced by the agent's late result while no retry has started.
            INFRASTRUCTURE_FAIL, EnumSet.of(SUCCESS, FAILED, CANCELED));
    /**
     * Legal workflow status changes: while it runs it may wait on an approval and resume; once a job failed it can only
     * end failed (or be canceled); terminal statuses have none.
     */
    static final Map<WorkflowStatus, Set<WorkflowStatus>> WORKFLOW_MOVES = Map.of(
            WorkflowStatus.RUNNING, EnumSet.of(WorkflowStatus.ON_HOLD, WorkflowStatus.FAILING, WorkflowStatus.SUCCESS,
                    WorkflowStatus.FAILED, WorkflowStatus.CANCELED),
            WorkflowStatus.ON_HOLD, EnumSet.of(WorkflowStatus.RUNNING, WorkflowStatus.FAILING, WorkflowStatus.SUCCESS,
                    WorkflowStatus.FAILED, WorkflowStatus.CANCELED),
            WorkflowStatus.FAILING, EnumSet.of(WorkflowStatus.FAILED, WorkflowStatus.CANCELED));
    /** How a job row may first appear: planned or rerun blocked, a retry queued, a rerun's carried or advanced job. */
    static final Set<JobStatus> JOB_FIRST = EnumSet.of(BLOCKED, QUEUED, ON_HOLD, SUCCESS, NOT_RUN);

    static final List<ExactlyOnce> EXACTLY_ONCE = List.of(
            Invariants::plannedOnce,
            Invariants::jobNumbersUnique,
            Invariants::settledOnce,
            Invariants::tasksQueuedOnce,
            Invariants::finishedNodesRunOnce,
            Invariants::chargedOnce,
            Invariants::countedOnce);
    /** The prices the rig's ledger charges at: the default fleet's. */
    static final ResourceClasses CLASSES = ResourceClasses.defaults();

    /**
     * Whether the organization's charging was off at some moment of this seed: then a task that ended meanwhile may
     * lack its charge, until the backfill at the seed's end.
     */
    boolean chargingWasOff;
    private final Map<String, World.Charged> charged = new HashMap<>();

    private final Map<Long, JobStatus> jobStatus = new HashMap<>();
    private final Map<Long, Instant> jobStopped = new HashMap<>();
    private final Map<UUID, WorkflowStatus> workflowStatus = new HashMap<>();
    private final Map<UUID, Instant> workflowStopped = new HashMap<>();
    private final Map<Long, String> pipelineState = new HashMap<>();

    /** Checks {@code now}; throws {@link Violation} naming the first invariant broken. */
    void check(World now, List<Answered> answered, Set<String> keysSent, List<Holder> holders) {
        pipelines(now, answered, keysSent);
        workflows(now);
        jobs(now);
        tasks(now, holders);
        for (ExactlyOnce check : EXACTLY_ONCE) {
            String violation = check.check(now, this);
            if (violation != null) {
                throw new Violation(violation);
            }
        }
        remember(now);
    }

    private void pipelines(World now, List<Answered> answered, Set<String> keysSent) {
        Map<String, List<World.Pipeline>> byKey = new HashMap<>();
        for (World.Pipeline p : now.pipelines()) {
            if (p.key() == null || !keysSent.contains(p.key())) {
                throw new Violation("pipeline #" + p.number() + " has key " + p.key() + ", which no client sent");
            }
            byKey.computeIfAbsent(p.key(), k -> new ArrayList<>()).add(p);
            String before = pipelineState.get(p.number());
            if (before != null && !before.equals(p.state()) && !before.equals("pending")) {
                throw new Violation("pipeline #" + p.number() + " moved from " + before + " to " + p.state());
            }
        }
        byKey.forEach((key, rows) -> {
            if (rows.size() > 1) {
                throw new Violation("trigger key " + key + " has " + rows.size() + " pipelines");
            }
        });
        for (Answered a : answered) {
            List<World.Pipeline> rows = byKey.getOrDefault(a.key(), List.of());
            if (rows.size() != 1 || !rows.getFirst().id().equals(a.pipelineId())) {
                throw new Violation("trigger " + a.key() + " was answered, but its pipeline is "
                        + (rows.isEmpty() ? "gone" : "another one, #" + rows.getFirst().number()));
            }
        }
    }

    private void workflows(World now) {
        for (World.Workflow w : now.workflows()) {
            WorkflowStatus status = WorkflowStatus.ofWord(w.status());
            WorkflowStatus before = workflowStatus.get(w.id());
            String name = "workflow " + w.name() + " of pipeline #" + w.pipelineNumber();
            if (before != null && before != status) {
                if (!WORKFLOW_MOVES.getOrDefault(before, Set.of()).contains(status)) {
                    throw new Violation(name + " moved from " + before.word() + " to " + status.word());
                }
            }
            if (status.terminal() != (w.stoppedAt() != null)) {
                throw new Violation(name + " is " + status.word() + " with stopped_at " + w.stoppedAt());
            }
            Instant stopped = workflowStopped.get(w.id());
            if (stopped != null && !stopped.equals(w.stoppedAt())) {
                throw new Violation(name + " stopped at " + stopped + ", and again at " + w.stoppedAt());
            }
        }
    }

    private void jobs(World now) {
        Set<String> attempts = new HashSet<>();
        for (World.Job j : now.jobs()) {
            JobStatus status = JobStatus.ofWord(j.status());
            JobStatus before = jobStatus.get(j.number());
            String name = "job #" + j.number() + " " + j.name();
            if (before == null && !JOB_FIRST.contains(status)) {
                throw new Violation(name + " appeared as " + status.word());
            }
            if (before != null && before != status
                    && !JOB_MOVES.getOrDefault(before, Set.of()).contains(status)) {
                throw new Violation(name + " moved from " + before.word() + " to " + status.word());
            }
            if (j.attempt() < 1 || j.attempt() > 2) {
                throw new Violation(name + " is attempt " + j.attempt() + "; a lost job is retried at most once");
            }
            if (!attempts.add(j.workflowId() + "/" + j.name() + "/" + j.attempt())) {
                throw new Violation(name + " is a second attempt " + j.attempt() + " of its job in its workflow");
            }
            if (status.terminal() != (j.stoppedAt() != null)) {
                throw new Violation(name + " is " + status.word() + " with stopped_at " + j.stoppedAt());
            }
        }
    }

    private void tasks(World now, List<Holder> holders) {
        Map<String, Integer> runningPerNode = new HashMap<>();
        for (World.Task t : now.tasks()) {
            World.Job job = now.job(t.jobId());
            if (t.status().equals("running")) {
                if (JobStatus.ofWord(job.status()).terminal()) {
                    throw new Violation("job #" + job.number() + " is " + job.status() + " while its node "
                            + t.node() + " still runs");
                }
                // Across attempts: a retry must not run while its lost first attempt still counts as running.
                String node = job.workflowId() + "/" + job.name() + "/" + t.node();
                if (runningPerNode.merge(node, 1, Integer::sum) > 1) {
                    throw new Violation("job " + job.name() + " node " + t.node() + " runs twice at once (job #"
                            + job.number() + ")");
                }
            }
        }
        Map<String, String> accepted = new HashMap<>();
        for (Holder h : holders) {
            World.Task t = now.task(h.jobId(), h.node());
            if (t != null && t.status().equals("running") && h.lease().equals(t.lease())) {
                String previous = accepted.put(h.jobId() + "/" + h.node(), h.agent());
                if (previous != null) {
                    throw new Violation("agents " + previous + " and " + h.agent() + " both hold job #"
                            + t.jobNumber() + " node " + t.node() + " with a lease the server accepts");
                }
            }
        }
    }

    /** A pipeline's plan is stored once: its workflows, reruns apart, have distinct names. */
    private static String plannedOnce(World now, Invariants seen) {
        Set<String> planned = new HashSet<>();
        for (World.Workflow w : now.workflows()) {
            if (w.rerunOf() == null && !planned.add(w.pipelineNumber() + "/" + w.name())) {
                return "pipeline #" + w.pipelineNumber() + " has workflow " + w.name() + " twice: planned twice";
            }
        }
        return null;
    }

    private static String jobNumbersUnique(World now, Invariants seen) {
        Set<Long> numbers = new HashSet<>();
        for (World.Job j : now.jobs()) {
            if (!numbers.add(j.number())) {
                return "job number " + j.number() + " was given twice";
            }
        }
        return null;
    }

    /**
     * A job settles once: its stopped_at, once set, never changes (a second settlement would move it), except when a
     * late result replaces the lease sweeper's infrastructure_fail.
     */
    private static String settledOnce(World now, Invariants seen) {
        for (World.Job j : now.jobs()) {
            Instant before = seen.jobStopped.get(j.number());
            boolean lateResult = seen.jobStatus.get(j.number()) == INFRASTRUCTURE_FAIL
                    && !j.status().equals(INFRASTRUCTURE_FAIL.word());
            if (before != null && !before.equals(j.stoppedAt()) && !lateResult) {
                return "job #" + j.number() + " " + j.name() + " stopped at " + before + " and again at "
                        + j.stoppedAt();
            }
        }
        return null;
    }

    /**
     * A retry runs only the nodes its lost attempt did not finish with success: each one that did is in the retry
     * already {@code success}, carried from that attempt, never queued or run again.
     */
    private static String finishedNodesRunOnce(World now, Invariants seen) {
        for (World.Job retry : now.jobs()) {
            World.Job lost = retry.attempt() != 2 ? null : now.jobs().stream()
                    .filter(j -> j.workflowId().equals(retry.workflowId()) && j.name().equals(retry.name())
                            && j.attempt() == 1).findFirst().orElse(null);
            for (int node = 0; lost != null && node < retry.parallelism(); node++) {
                World.Task ran = now.task(lost.id(), node);
                World.Task again = now.task(retry.id(), node);
                if (ran != null && again != null && ran.status().equals("success")
                        && !(again.status().equals("success") && lost.id().equals(again.carriedFrom()))) {
                    return "job #" + retry.number() + " " + retry.name() + " node " + node + " is " + again.status()
                            + " in the retry, although it had succeeded in job #" + lost.number();
                }
            }
        }
        return null;
    }

    /** A job that was queued has one task per node, queued once; one never queued has none. */
    private static String tasksQueuedOnce(World now, Invariants seen) {
        Map<UUID, Integer> tasks = new HashMap<>();
        for (World.Task t : now.tasks()) {
            tasks.merge(t.jobId(), 1, Integer::sum);
        }
        for (World.Job j : now.jobs()) {
            int expected = j.wasQueued() ? j.parallelism() : 0;
            int actual = tasks.getOrDefault(j.id(), 0);
            if (actual != expected) {
                return "job #" + j.number() + " " + j.name() + " has " + actual + " tasks, expected " + expected;
            }
        }
        return null;
    }

    /**
     * Every task's charge is what the usage rule makes of its record as it is now, as a backfill would write it: a
     * task the rule charges is charged (unless charging was off), one it does not charge is not, and a charge once
     * written never changes, whatever came after (a late result, a retry, a rerun, a crash mid-transaction).
     */
    /**
     * The months hold exactly the credits of the charges counted into them: a count run twice (a duplicate or
     * re-delivered message, a crash after its commit) adds nothing, and a count that crashed added nothing.
     */
    private static String countedOnce(World now, Invariants seen) {
        World.Ledger l = now.ledger();
        return l.monthCredits() == l.countedCredits() ? null : "the months hold " + l.monthCredits()
                + " credits, the charges counted into them " + l.countedCredits();
    }

    private static String chargedOnce(World now, Invariants seen) {
        for (World.Usage u : now.usage()) {
            String task = "job #" + u.jobNumber() + " node " + u.node() + " (" + u.status() + ")";
            Optional<Charge> due = UsageRule.charge(new TaskRecord(u.jobId(), u.node(), 1, "dst", null, "", "", "",
                    u.resourceClass(), null, u.status(), u.startedAt(), u.acceptedAt(), u.stoppedAt(),
                    u.givenUpAt()), CLASSES);
            World.Charged was = seen.charged.get(u.jobId() + "/" + u.node());
            if (was != null && !was.equals(u.charged())) {
                return task + " was charged " + was + ", and is now " + u.charged();
            }
            if (u.charged() == null && due.isPresent() && !seen.chargingWasOff) {
                return task + " ended and is not charged; the rule charges it " + due.get().minutes() + " minutes";
            }
            if (u.charged() != null && (due.isEmpty() || !u.charged().equals(new World.Charged(due.get().endedAt(),
                    due.get().runMs(), due.get().minutes(), due.get().credits())))) {
                return task + " is charged " + u.charged() + ", the rule says " + due.map(Object::toString)
                        .orElse("nothing");
            }
        }
        return null;
    }

    private void remember(World now) {
        now.usage().stream().filter(u -> u.charged() != null)
                .forEach(u -> charged.put(u.jobId() + "/" + u.node(), u.charged()));
        now.pipelines().forEach(p -> pipelineState.put(p.number(), p.state()));
        now.workflows().forEach(w -> {
            workflowStatus.put(w.id(), WorkflowStatus.ofWord(w.status()));
            if (w.stoppedAt() != null) {
                workflowStopped.put(w.id(), w.stoppedAt());
            }
        });
        now.jobs().forEach(j -> {
            jobStatus.put(j.number(), JobStatus.ofWord(j.status()));
            if (j.stoppedAt() != null) {
                jobStopped.put(j.number(), j.stoppedAt());
            }
        });
    }

    /** A broken invariant. */
    static final class Violation extends AssertionError {
        Violation(String message) {
            super(Objects.requireNonNull(message));
        }
    }
}
