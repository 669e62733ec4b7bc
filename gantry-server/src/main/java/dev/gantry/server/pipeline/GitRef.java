package dev.gantry.server.pipeline;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The branch or tag a pipeline builds: exactly one of the two, never both.
 *
 * @param name a name git accepts for a ref, checked by {@link #validName}
 */
public record GitRef(Kind kind, String name) {
    public enum Kind { BRANCH, TAG }

    public static final int MAX_LENGTH = 255;
    public static final String NAME_RULE = "1-" + MAX_LENGTH + " characters that git allows in a ref name (no "
            + "spaces, control characters, ~ ^ : ? * [ \\, '..' or '@{', not starting with '-' or '/', not ending "
            + "with '/', '.' or '.lock')";

    private static final Pattern FORBIDDEN = Pattern.compile("[\\s\\p{Cntrl}~^:?*\\[\\\\]|\\.\\.|@\\{|//");

    public GitRef {
        Objects.requireNonNull(kind, "kind");
        if (!validName(name)) {
            throw new IllegalArgumentException("not a valid ref name: '" + name + "'");
        }
    }

    public static GitRef branch(String name) {
        return new GitRef(Kind.BRANCH, name);
    }

    public static GitRef tag(String name) {
        return new GitRef(Kind.TAG, name);
    }

    /** The rules of {@code git check-ref-format} that matter for a branch or tag name a client sends. */
    public static boolean validName(String name) {
        return name != null && !name.isEmpty() && name.length() <= MAX_LENGTH && !FORBIDDEN.matcher(name).find()
                && !name.startsWith("-") && !name.startsWith("/") && !name.endsWith("/") && !name.endsWith(".")
                && !name.endsWith(".lock");
    }

    /** The branch name, or null for a tag. */
    public String branch() {
        return kind == Kind.BRANCH ? name : null;
    }

    /** The tag name, or null for a branch. */
    public String tag() {
        return kind == Kind.TAG ? name : null;
    }
}
