package dev.gantry.config.plan;

/** The terminal status of an upstream job that lets a dependent job start ({@code requires: [build: failed]}). */
public enum RequiredStatus {
    SUCCESS("success"), FAILED("failed"), CANCELED("canceled");

    private final String word;

    RequiredStatus(String word) {
        this.word = word;
    }

    public String word() {
        return word;
    }

    /** The status for a config word, or null when the word is not one. */
    public static RequiredStatus fromWord(String word) {
        for (RequiredStatus s : values()) {
            if (s.word.equals(word)) {
                return s;
            }
        }
        return null;
    }
}
