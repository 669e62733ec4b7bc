package dev.gantry.config;

import dev.gantry.config.diag.Diagnostic;
import dev.gantry.config.plan.Plan;
import java.util.List;

/**
 * What a compile produced: a plan when there were no errors, and every diagnostic found (warnings included), sorted
 * by file, line and column.
 */
public record CompileResult(Plan plan, List<Diagnostic> diagnostics) {

    public CompileResult {
        diagnostics = List.copyOf(diagnostics);
        if ((plan == null) == errorsIn(diagnostics).isEmpty()) {
            throw new IllegalArgumentException("a result has a plan exactly when it has no errors");
        }
    }

    /** True when the config compiled; warnings may still be present. */
    public boolean ok() {
        return plan != null;
    }

    public List<Diagnostic> errors() {
        return errorsIn(diagnostics);
    }

    public List<Diagnostic> warnings() {
        return diagnostics.stream().filter(d -> d.severity() == Diagnostic.Severity.WARNING).toList();
    }

    private static List<Diagnostic> errorsIn(List<Diagnostic> diagnostics) {
        return diagnostics.stream().filter(d -> d.severity() == Diagnostic.Severity.ERROR).toList();
    }
}
