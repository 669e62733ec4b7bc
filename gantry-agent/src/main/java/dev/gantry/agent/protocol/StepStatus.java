package dev.gantry.agent.protocol;

/** A step's status, with the protocol's word for it. */
public enum StepStatus {
    RUNNING("running"), SUCCESS("success"), FAILED("failed"), CANCELED("canceled"), SKIPPED("skipped");

    private final String word;

    StepStatus(String word) {
        this.word = word;
    }

    public String word() {
        return word;
    }
}
