package dev.gantry.server.run;

import java.util.Collection;

/** The status of one parallel node of a job, as an agent runs it. */
public enum TaskStatus implements Worded {
    QUEUED("queued", false),
    RUNNING("running", false),
    SUCCESS("success", true),
    FAILED("failed", true),
    CANCELED("canceled", true),
    /** Its agent stopped heartbeating before it finished. */
    INFRASTRUCTURE_FAIL("infrastructure_fail", true);

    private final String word;
    private final boolean terminal;

    TaskStatus(String word, boolean terminal) {
        this.word = word;
        this.terminal = terminal;
    }

    @Override
    public String word() {
        return word;
    }

    @Override
    public boolean terminal() {
        return terminal;
    }

    public static TaskStatus ofWord(String word) {
        return Worded.ofWord(TaskStatus.class, word, "task status");
    }

    /**
     * The status of a job whose tasks have all ended: a lost agent outranks a user failure (the retry reruns every
     * node that did not succeed, the failed one too), a failure outranks a cancel, and success needs every node to succeed.
     *
     * @throws IllegalArgumentException if a task has not ended, or there are none
     */
    public static JobStatus jobOutcome(Collection<TaskStatus> tasks) {
        if (tasks.isEmpty() || tasks.stream().anyMatch(t -> !t.terminal)) {
            throw new IllegalArgumentException("a job's outcome needs every task ended, got " + tasks);
        }
        if (tasks.contains(INFRASTRUCTURE_FAIL)) {
            return JobStatus.INFRASTRUCTURE_FAIL;
        }
        if (tasks.contains(FAILED)) {
            return JobStatus.FAILED;
        }
        if (tasks.contains(CANCELED)) {
            return JobStatus.CANCELED;
        }
        return JobStatus.SUCCESS;
    }
}
