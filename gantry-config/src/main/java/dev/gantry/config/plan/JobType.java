package dev.gantry.config.plan;

/** What a job instance is: one that runs steps, a manual approval gate, or a placeholder that does nothing. */
public enum JobType {
    BUILD("build"), APPROVAL("approval"), NO_OP("no-op");

    private final String word;

    JobType(String word) {
        this.word = word;
    }

    /** The word used in configs and in the plan's JSON. */
    public String word() {
        return word;
    }

    /** The type for a config word, or null when the word is not a job type. */
    public static JobType fromWord(String word) {
        for (JobType t : values()) {
            if (t.word.equals(word)) {
                return t;
            }
        }
        return null;
    }
}
