package dev.gantry.agent.protocol;

/** How a task ended, as the agent completes it. */
public enum TaskOutcome {
    SUCCESS("success"), FAILED("failed"), CANCELED("canceled");

    private final String word;

    TaskOutcome(String word) {
        this.word = word;
    }

    public String word() {
        return word;
    }
}
