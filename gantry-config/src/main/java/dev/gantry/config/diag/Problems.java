package dev.gantry.config.diag;

import dev.gantry.config.yaml.Pos;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Collects the diagnostics of one compile. Not thread-safe: one compile, one collector. Identical diagnostics (the
 * same shared node reached twice through an alias) are kept once, and after {@value #MAX} the rest are dropped with
 * a note, so a broken generated config cannot flood the output.
 */
public final class Problems {
    public static final int MAX = 500;

    private static final Comparator<Diagnostic> ORDER = Comparator.comparing(Diagnostic::file)
            .thenComparingInt(Diagnostic::line)
            .thenComparingInt(Diagnostic::column)
            .thenComparing(Diagnostic::path)
            .thenComparing(Diagnostic::message);

    private final Set<Diagnostic> found = new LinkedHashSet<>();
    private int errors;
    private int dropped;
    private int droppedErrors;

    public void error(Pos pos, String path, String message) {
        add(Diagnostic.Severity.ERROR, pos, path, message, null);
    }

    public void error(Pos pos, String path, String message, String hint) {
        add(Diagnostic.Severity.ERROR, pos, path, message, hint);
    }

    public void warning(Pos pos, String path, String message, String hint) {
        add(Diagnostic.Severity.WARNING, pos, path, message, hint);
    }

    /**
     * True once {@value #MAX} diagnostics are kept: later ones are only counted, so a caller may skip working out
     * their hints (a config that repeats one mistake through aliases can make millions of them).
     */
    public boolean full() {
        return found.size() >= MAX;
    }

    public boolean hasErrors() {
        return errors > 0;
    }

    public int errorCount() {
        return errors;
    }

    /** Every diagnostic, ordered by file, line and column. */
    public List<Diagnostic> sorted() {
        List<Diagnostic> out = new ArrayList<>(found);
        out.sort(ORDER);
        if (dropped > 0) {
            // An error only when an error was dropped: warnings alone must not turn a plan into a failed compile.
            Diagnostic last = out.get(out.size() - 1);
            out.add(new Diagnostic(droppedErrors > 0 ? Diagnostic.Severity.ERROR : Diagnostic.Severity.WARNING,
                    last.file(), last.line(), last.column(), "", dropped + " more problems not shown",
                    "fix the ones above first"));
        }
        return out;
    }

    private void add(Diagnostic.Severity severity, Pos pos, String path, String message, String hint) {
        if (full()) {
            dropped++;
            if (severity == Diagnostic.Severity.ERROR) {
                errors++;
                droppedErrors++;
            }
            return;
        }
        if (found.add(new Diagnostic(severity, pos.file(), Math.max(1, pos.line()), Math.max(1, pos.column()), path,
                message, hint)) && severity == Diagnostic.Severity.ERROR) {
            errors++;
        }
    }
}
