package dev.gantry.agent.protocol;

/** How a task ended, as the agent completes it. */
public enum TaskOutcome {
    SUCCESS("success"), FAILED("failed"), CANCELED("canceled"),
    /** The task could not run for a reason outside the job (an image that cannot be pulled): the server retries it. */
    INFRASTRUCTURE_FAIL("infrastructure_fail");

    private final String word;

    TaskOutcome(String word) {
        this.word = word;
    }

    public String word() {
        return word;
    }
}
