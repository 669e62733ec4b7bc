package dev.gantry.config;

import dev.gantry.config.diag.Problems;
import dev.gantry.config.expand.Abort;
import dev.gantry.config.expand.ConfigExpander;
import dev.gantry.config.orb.OrbResolver;
import dev.gantry.config.plan.Plan;
import dev.gantry.config.yaml.Pos;
import dev.gantry.config.yaml.YNode;
import dev.gantry.config.yaml.YamlLoader;

/** One compile of one text: load, expand, collect diagnostics. Single use, not thread-safe. */
final class Compilation {
    private final String file;
    private final OrbResolver orbs;
    private final Limits limits;
    private final PipelineContext context;
    private final boolean unfiltered;
    private final Problems problems = new Problems();

    Compilation(String file, OrbResolver orbs, Limits limits, PipelineContext context, boolean unfiltered) {
        this.file = file;
        this.orbs = orbs;
        this.limits = limits;
        this.context = context;
        this.unfiltered = unfiltered;
    }

    CompileResult run(String text) {
        Plan plan = null;
        try {
            YNode root = new YamlLoader(limits, problems).load(file, text);
            if (root != null) {
                plan = new ConfigExpander(problems, orbs, limits).expand(root, context, unfiltered);
            }
        } catch (Abort e) {
            problems.error(e.pos(), e.path(), e.getMessage(), e.hint());
        } catch (StackOverflowError e) {
            problems.error(new Pos(file, 1, 1), "", "the config nests too deeply to compile",
                    "limit of " + limits.maxExpansionDepth() + " levels of commands");
        } catch (OutOfMemoryError e) {
            // The limits should prevent this; if one is missing, the caller still gets a diagnostic, not a crash.
            problems.error(new Pos(file, 1, 1), "", "the config needs more memory to compile than is available",
                    "please report this config");
        } catch (RuntimeException e) {
            // A bug of ours must still come out as a diagnostic, never as an exception to the caller.
            problems.error(new Pos(file, 1, 1), "", "internal compiler error: " + e, "please report this config");
        }
        return problems.hasErrors() || plan == null
                ? new CompileResult(null, withFallback())
                : new CompileResult(plan, problems.sorted());
    }

    private java.util.List<dev.gantry.config.diag.Diagnostic> withFallback() {
        if (!problems.hasErrors()) {
            problems.error(new Pos(file, 1, 1), "", "the config produced no plan");
        }
        return problems.sorted();
    }
}
