package dev.gantry.notify;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * When a destination wants to hear of a finished workflow: on every run, on failure, or when it is fixed (it
 * succeeded and the workflow of the same name on the same branch had failed the run before, as CircleCI's and
 * Travis's "fixed" mean it), and only on the branches named (exact names or globs where {@code *} is any run of
 * characters and {@code ?} one; none means every branch). A pipeline of a tag has no branch: only a rule without
 * branches matches it. Pure, immutable.
 */
public record Rule(When when, List<String> branches) {
    /** Statuses that count as a failure: a job failed, or the run broke. */
    public static final Set<String> FAILURES = Set.of("failed", "error", "failing", "infrastructure_fail");

    public enum When {
        ALWAYS, FAILURE, FIXED;

        public String word() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** The value {@code word} names, or null. */
        public static When ofWord(String word) {
            for (When when : values()) {
                if (when.word().equals(word)) {
                    return when;
                }
            }
            return null;
        }
    }

    public static final Rule EVERY_RUN = new Rule(When.ALWAYS, List.of());

    public Rule {
        Objects.requireNonNull(when, "when");
        branches = List.copyOf(branches);
    }

    /**
     * Whether a workflow that ended with {@code status} on {@code branch} (null for a tag) is to be told, the previous
     * run of the same workflow on that branch having ended with {@code previousStatus} (null when there was none).
     */
    public boolean matches(String status, String previousStatus, String branch) {
        return onBranch(branch) && switch (when) {
            case ALWAYS -> true;
            case FAILURE -> FAILURES.contains(status);
            case FIXED -> "success".equals(status) && previousStatus != null && FAILURES.contains(previousStatus);
        };
    }

    /** Whether {@code branch} is one the rule names (any, when it names none). */
    public boolean onBranch(String branch) {
        if (branches.isEmpty()) {
            return true;
        }
        return branch != null && branches.stream().anyMatch(glob -> glob(glob).matcher(branch).matches());
    }

    /** A check of a branch pattern as the API takes it: a name or glob without spaces, 1-200 characters. */
    public static boolean validBranchPattern(String pattern) {
        return !pattern.isEmpty() && pattern.length() <= 200 && pattern.chars().noneMatch(Character::isWhitespace);
    }

    private static Pattern glob(String glob) {
        StringBuilder regex = new StringBuilder();
        for (char c : glob.toCharArray()) {
            switch (c) {
                case '*' -> regex.append(".*");
                case '?' -> regex.append('.');
                default -> regex.append(Pattern.quote(String.valueOf(c)));
            }
        }
        return Pattern.compile(regex.toString());
    }
}
