package dev.gantry.server.run;


/** A workflow's status, with CircleCI's words. */
public enum WorkflowStatus implements Worded {
    RUNNING("running", false),
    /** Nothing can move until someone approves a job. */
    ON_HOLD("on_hold", false),
    /** Still running, but a job has already failed. */
    FAILING("failing", false),
    SUCCESS("success", true),
    FAILED("failed", true),
    CANCELED("canceled", true),
    NOT_RUN("not_run", true),
    /** The workflow could not run at all. */
    ERROR("error", true);

    private final String word;
    private final boolean terminal;

    WorkflowStatus(String word, boolean terminal) {
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

    public static WorkflowStatus ofWord(String word) {
        return Worded.ofWord(WorkflowStatus.class, word, "workflow status");
    }
}
