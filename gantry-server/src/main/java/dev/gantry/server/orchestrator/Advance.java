package dev.gantry.server.orchestrator;

import dev.gantry.server.run.JobStatus;
import dev.gantry.server.run.WorkflowStatus;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * What advancing a workflow does, as a pure function of its jobs: which blocked jobs start (or never will), which
 * lost jobs get their one retry, and the workflow's status afterwards. The orchestrator applies the decision under
 * the workflow's row lock; deciding again on the result decides nothing new, so a repeated advance is harmless.
 *
 * <p>A job name's latest attempt is the one that counts. A job whose agent was lost ({@code infrastructure_fail}) on
 * its first attempt is retried once, and until the retry exists its dependents wait as if it still ran. For
 * {@code requires} statuses, {@code infrastructure_fail} counts as {@code failed}.
 */
final class Advance {
    private Advance() {
    }

    /** A job as the decision needs it. */
    record Job(UUID id, String name, int attempt, String type, JobStatus status, Map<String, List<String>> requires) {
    }

    /** A blocked job's new status. */
    record Transition(UUID jobId, JobStatus to) {
    }

    /**
     * @param transitions blocked jobs that move on: to queued (build), on_hold (approval), success (no-op) or not_run
     * @param retries     lost first attempts to run again as new jobs
     * @param status      the workflow's status once these are applied
     */
    record Decision(List<Transition> transitions, List<Job> retries, WorkflowStatus status) {
        boolean changes(WorkflowStatus current) {
            return !transitions.isEmpty() || !retries.isEmpty() || status != current;
        }
    }

    static Decision decide(WorkflowStatus current, List<Job> jobs) {
        if (current.terminal()) {
            return new Decision(List.of(), List.of(), current);
        }
        Map<String, Job> latest = new LinkedHashMap<>();
        for (Job job : jobs) {
            latest.merge(job.name(), job, (a, b) -> a.attempt() >= b.attempt() ? a : b);
        }
        List<Job> retries = new ArrayList<>();
        Set<String> retrying = new HashSet<>();
        for (Job job : latest.values()) {
            if (job.status() == JobStatus.INFRASTRUCTURE_FAIL && job.attempt() == 1) {
                retries.add(job);
                retrying.add(job.name());
            }
        }
        Map<String, JobStatus> effective = new HashMap<>();
        latest.forEach((name, job) -> effective.put(name, retrying.contains(name) ? JobStatus.QUEUED : job.status()));
        List<Transition> transitions = new ArrayList<>();
        // No-ops succeed and not_run spreads within one advance, so go round until nothing moves.
        for (boolean moved = true; moved; ) {
            moved = false;
            for (Job job : latest.values()) {
                if (effective.get(job.name()) != JobStatus.BLOCKED) {
                    continue;
                }
                JobStatus next = unblocked(job, effective);
                if (next != null) {
                    effective.put(job.name(), next);
                    transitions.add(new Transition(job.id(), next));
                    moved = true;
                }
            }
        }
        return new Decision(transitions, retries, status(effective.values()));
    }

    /** The status a blocked job moves to now, or null while something it requires has not ended. */
    private static JobStatus unblocked(Job job, Map<String, JobStatus> effective) {
        boolean satisfied = true;
        for (Map.Entry<String, List<String>> required : job.requires().entrySet()) {
            JobStatus upstream = effective.get(required.getKey());
            if (upstream == null) {
                // The planner stores only plans whose requires name jobs of the workflow.
                throw new IllegalStateException("job " + job.name() + " requires unknown job " + required.getKey());
            }
            if (!upstream.terminal()) {
                return null;
            }
            String word = requiresWord(upstream);
            satisfied &= word != null && required.getValue().contains(word);
        }
        if (!satisfied) {
            return JobStatus.NOT_RUN;
        }
        return switch (job.type()) {
            case "approval" -> JobStatus.ON_HOLD;
            case "no-op" -> JobStatus.SUCCESS;
            default -> JobStatus.QUEUED;
        };
    }

    /** The word a terminal status matches in {@code requires: [job: word]}; null for not_run, which matches none. */
    private static String requiresWord(JobStatus status) {
        return switch (status) {
            case SUCCESS -> "success";
            case FAILED, INFRASTRUCTURE_FAIL -> "failed";
            case CANCELED -> "canceled";
            default -> null;
        };
    }

    private static WorkflowStatus status(java.util.Collection<JobStatus> statuses) {
        boolean failed = statuses.contains(JobStatus.FAILED) || statuses.contains(JobStatus.INFRASTRUCTURE_FAIL);
        if (statuses.stream().allMatch(JobStatus::terminal)) {
            if (failed) {
                return WorkflowStatus.FAILED;
            }
            return statuses.contains(JobStatus.CANCELED) ? WorkflowStatus.CANCELED : WorkflowStatus.SUCCESS;
        }
        if (failed) {
            return WorkflowStatus.FAILING;
        }
        boolean working = statuses.contains(JobStatus.QUEUED) || statuses.contains(JobStatus.RUNNING);
        return working || !statuses.contains(JobStatus.ON_HOLD) ? WorkflowStatus.RUNNING : WorkflowStatus.ON_HOLD;
    }
}
