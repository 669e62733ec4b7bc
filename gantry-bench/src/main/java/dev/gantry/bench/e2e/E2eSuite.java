package dev.gantry.bench.e2e;

import dev.gantry.bench.Suite;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;

/**
 * {@code bench e2e}: a one-job no-op pipeline end to end, Gantry (server and four agents as processes, on its
 * embedded PostgreSQL) and then Buildbot (master and four workers, from Debian's packages) in the same run, through
 * the same measurements: trigger → first step started on warm agents, and sustained pipelines per minute. See
 * {@link GantryE2e} and {@link BuildbotPeer} for the methods. Ends with
 * {@code RESULT p50_start_ms=… p95_start_ms=… pipelines_per_min=… buildbot_pipelines_per_min=… ratio_vs_buildbot=…}.
 */
public final class E2eSuite implements Suite {
    static final int AGENTS = 4;
    /** {@code -Dbench.e2e.only=gantry} skips Buildbot, to try a change quickly; its figures are then {@code NaN}. */
    static final String ONLY = "bench.e2e.only";
    /** {@code -Dbench.e2e.warmup=S} sets the saturated warm-up, for both systems; see {@link #saturatedWarmUp}. */
    static final String WARM_UP = "bench.e2e.warmup";

    /**
     * How long both systems run saturated before their throughput window opens: 30 s (quick: 10 s). Sustained
     * throughput is a steady state's; a fresh Gantry JVM spends a third of its CPU in the JIT compiler for its first
     * half minute under load (Buildbot, on CPython, compiles nothing), so the same warm-up for both lets that pass.
     */
    static Duration saturatedWarmUp(boolean quick) {
        return Duration.ofSeconds(Long.getLong(WARM_UP, quick ? 10 : 30));
    }

    @Override
    public String name() {
        return "e2e";
    }

    @Override
    public String description() {
        return "a one-job no-op pipeline end to end: Gantry with 4 agents vs Buildbot with 4 workers";
    }

    @Override
    public int run(boolean quick, PrintStream out, PrintStream err) throws Exception {
        out.println("bench e2e" + (quick ? " --quick" : "") + ": a one-job no-op pipeline, " + AGENTS
                + " agents / workers of one build each, on " + Runtime.getRuntime().availableProcessors()
                + " processors");
        E2eFigures gantry;
        try (GantryRig rig = GantryRig.start(AGENTS, "shell")) {
            gantry = GantryE2e.run(rig, quick, saturatedWarmUp(quick), out);
        }
        boolean gantryOnly = "gantry".equals(System.getProperty(ONLY));
        BuildbotFigures buildbot = null;
        if (!gantryOnly) {
            out.println("buildbot: starting (installs Debian's buildbot packages if missing)");
            buildbot = BuildbotPeer.run(quick, saturatedWarmUp(quick), out);
        }
        double buildbotPerMin = buildbot == null ? Double.NaN : buildbot.buildsPerMin();
        double ratio = gantry.pipelinesPerMinute() / buildbotPerMin;
        out.println();
        out.printf(Locale.ROOT, "%-10s %12s %12s %16s%n", "system", "p50 start", "p95 start", "pipelines/min");
        out.printf(Locale.ROOT, "%-10s %9.0f ms %9.0f ms %16.0f%n", "gantry", gantry.p50StartMs(),
                gantry.p95StartMs(), gantry.pipelinesPerMinute());
        if (buildbot != null) {
            out.printf(Locale.ROOT, "%-10s %9.0f ms %9.0f ms %16.0f%n", "buildbot", buildbot.p50StartMs(),
                    buildbot.p95StartMs(), buildbot.buildsPerMin());
        }
        out.printf(Locale.ROOT, "latency samples: %d each; throughput window: %d s each, after %d s saturated%n",
                gantry.samples(), gantry.window().toSeconds(), saturatedWarmUp(quick).toSeconds());
        out.printf(Locale.ROOT, "RESULT p50_start_ms=%.0f p95_start_ms=%.0f pipelines_per_min=%.0f "
                        + "buildbot_pipelines_per_min=%.0f ratio_vs_buildbot=%.2f%n", gantry.p50StartMs(),
                gantry.p95StartMs(), gantry.pipelinesPerMinute(), buildbotPerMin, ratio);
        return 0;
    }
}
