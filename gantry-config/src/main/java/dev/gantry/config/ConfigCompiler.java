package dev.gantry.config;

import dev.gantry.config.orb.OrbResolver;
import java.util.Objects;

/**
 * Compiles a CircleCI-style {@code config.yml} (version 2, 2.0 or 2.1) into a {@link dev.gantry.config.plan.Plan}
 * for one pipeline context.
 *
 * <p>Every problem is reported as a {@link dev.gantry.config.diag.Diagnostic} in the result; no exception escapes
 * for any input. Compiling is deterministic: the same text and context give an equal plan. Instances are immutable
 * and safe to share between threads.
 */
public final class ConfigCompiler {
    private final OrbResolver orbs;
    private final Limits limits;

    private ConfigCompiler(OrbResolver orbs, Limits limits) {
        this.orbs = orbs;
        this.limits = limits;
    }

    /** A compiler with no orb directory and the default limits. */
    public static ConfigCompiler create() {
        return new ConfigCompiler(OrbResolver.NONE, Limits.DEFAULTS);
    }

    /** A compiler that resolves registry orbs with {@code orbs} and enforces {@code limits}. */
    public static ConfigCompiler create(OrbResolver orbs, Limits limits) {
        return new ConfigCompiler(Objects.requireNonNull(orbs, "orbs"), Objects.requireNonNull(limits, "limits"));
    }

    /**
     * The plan for {@code context}: workflows whose {@code when}/{@code unless} hold, and jobs whose filters admit
     * the context's branch or tag (with the jobs that require them).
     *
     * @param file the name diagnostics carry, usually the path the text was read from
     */
    public CompileResult compile(String file, String text, PipelineContext context) {
        return run(file, text, context, false);
    }

    /**
     * Every workflow and job instance as declared, ignoring filters and workflow {@code when}/{@code unless}: the
     * whole graph of a config, for review.
     */
    public CompileResult compileUnfiltered(String file, String text, PipelineContext context) {
        return run(file, text, context, true);
    }

    /** Checks a whole config: compiles it unfiltered in the default context. */
    public CompileResult validate(String file, String text) {
        return compileUnfiltered(file, text, PipelineContext.defaults());
    }

    private CompileResult run(String file, String text, PipelineContext context, boolean unfiltered) {
        return new Compilation(file, orbs, limits, context, unfiltered).run(text);
    }
}
