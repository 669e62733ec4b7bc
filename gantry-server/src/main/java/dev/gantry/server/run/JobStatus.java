package dev.gantry.server.run;


/** A job's status, with CircleCI's words; the orchestrator moves it only by compare-and-set. */
public enum JobStatus implements Worded {
    /** Waiting for the jobs it requires. */
    BLOCKED("blocked", false),
    /** Its tasks wait for an agent. */
    QUEUED("queued", false),
    RUNNING("running", false),
    /** An approval job waiting for someone to approve it. */
    ON_HOLD("on_hold", false),
    SUCCESS("success", true),
    FAILED("failed", true),
    CANCELED("canceled", true),
    /** Never ran: what it required ended with a status it does not accept. */
    NOT_RUN("not_run", true),
    /** Its agent was lost; the orchestrator retries such a job once as a new job. */
    INFRASTRUCTURE_FAIL("infrastructure_fail", true);

    private final String word;
    private final boolean terminal;

    JobStatus(String word, boolean terminal) {
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

    public static JobStatus ofWord(String word) {
        return Worded.ofWord(JobStatus.class, word, "job status");
    }
}
