package dev.gantry.config.diag;

import java.util.Objects;

/**
 * One problem found in a config: where it is and what is wrong.
 *
 * <p>Lines and columns are 1-based. {@code path} is the config path of the offending node, like
 * {@code jobs.build.steps[2].run}; it is empty for problems of the whole file. {@code hint} is an optional suggestion
 * ("did you mean 'build'?") and may be null.
 */
public record Diagnostic(Severity severity, String file, int line, int column, String path, String message, String hint) {

    /** How bad a diagnostic is. Warnings never block a compile. */
    public enum Severity {
        ERROR, WARNING;

        String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    public Diagnostic {
        Objects.requireNonNull(severity, "severity");
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(message, "message");
        if (line < 1 || column < 1) {
            throw new IllegalArgumentException("line and column are 1-based: " + line + ":" + column);
        }
    }

    /** Formats as {@code FILE:LINE:COL: error: PATH: MESSAGE (HINT)}, the form editors and people both read. */
    public String format() {
        StringBuilder out = new StringBuilder(file).append(':').append(line).append(':').append(column)
                .append(": ").append(severity.label()).append(": ");
        if (!path.isEmpty()) {
            out.append(path).append(": ");
        }
        out.append(message);
        if (hint != null && !hint.isEmpty()) {
            out.append(" (").append(hint).append(')');
        }
        return out.toString();
    }

    @Override
    public String toString() {
        return format();
    }
}
