package dev.gantry.bench.scheduler;

import dev.gantry.bench.Suite;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code bench scheduler}: {@code Placement.place} under churn on a virtual clock over a fleet of 5,000 instances
 * ({@link Churn}), then Timefold Solver packing the jobs of a few of its snapshots onto as few instances as it can
 * ({@link SolverPacking}). Ends with
 * {@code RESULT placements_per_s=N p99_decision_ms=X churn_vs_lower_bound=X vs_solver=X}.
 */
public final class SchedulerSuite implements Suite {

    @Override
    public String name() {
        return "scheduler";
    }

    @Override
    public String description() {
        return "placement under churn over 5,000 instances: speed, and packing vs the lower bound and Timefold";
    }

    @Override
    public int run(boolean quick, PrintStream out, PrintStream err) throws Exception {
        ChurnConfig config = quick ? ChurnConfig.quick() : ChurnConfig.full();
        Churn churn = new Churn(config);
        out.printf(Locale.ROOT, "bench scheduler%s: %,d instances of %s, %.0f %% of their vCPU demanded on average "
                        + "(%.1f arrivals per virtual second), one decision per virtual second, %,d warm-up and %,d "
                        + "measured rounds, seed %d; organisation limits %s%n", quick ? " --quick" : "",
                config.instances(), Churn.TYPE.capacity(), 100 * config.utilisation(), churn.arrivalsPerSecond(),
                config.warmupRounds(), config.measuredRounds(), config.seed(), churn.limits().maxConcurrentJobs());
        out.printf(Locale.ROOT, "load average at start: %.2f on %d processors%n", loadAverage(),
                Runtime.getRuntime().availableProcessors());
        ChurnFigures figures = churn.run(out);
        out.printf(Locale.ROOT, "load average after the churn: %.2f; %d garbage collections (%d ms) during the "
                + "measured rounds%n", loadAverage(), figures.gcCount(), figures.gcMillis());

        out.println();
        out.printf(Locale.ROOT, "decisions: %,d rounds, %,d placements, %,d waiting verdicts %s, %.1f ms in place() "
                        + "in all%n", figures.rounds(), figures.placements(), figures.waits(), figures.waitsByReason(),
                figures.placeNanos() / 1e6);
        out.printf(Locale.ROOT, "decision time: p50 %.3f ms, p99 %.3f ms, max %.3f ms; %,.0f placements/s on one "
                        + "thread%n",
                figures.decisionMs(50), figures.decisionMs(99), figures.decisionMs(100),
                figures.placementsPerSecond());
        out.printf(Locale.ROOT, "decision CPU time (this thread only; leaves out waiting for a core): p50 %.3f ms, "
                        + "p99 %.3f ms, max %.3f ms%n", figures.decisionCpuMs(50), figures.decisionCpuMs(99),
                figures.decisionCpuMs(100));
        out.printf(Locale.ROOT, "packing: on average %,.1f running jobs, %,.1f pending, %,.1f instances in use, lower "
                        + "bound %,.1f; mean per-round ratio %.4f%n", figures.meanRunning(), figures.meanPending(),
                figures.meanInUse(), figures.meanLowerBound(), figures.meanRatio());

        List<SolverPacking.Result> solved = new ArrayList<>();
        for (PackingSnapshot s : figures.snapshots()) {
            out.printf(Locale.ROOT, "timefold: round %d, %,d jobs, placement used %,d instances (lower bound %,d); "
                    + "solving for up to %d s%n", s.round(), s.demands().size(), s.ourInstances(), s.lowerBound(),
                    config.solverLimit().toSeconds());
            SolverPacking.Result r = SolverPacking.solve(s, Churn.TYPE.capacity(), config.solverLimit());
            solved.add(r);
            out.printf(Locale.ROOT, "  first fit decreasing (the start): %,d instances in %.3f s%n",
                    r.startInstances(), r.startSeconds());
            out.printf(Locale.ROOT, "  %s: %,d instances (%s) after %.1f s%n", r.description(), r.instances(),
                    r.feasible() ? "feasible" : "INFEASIBLE", r.seconds());
            out.printf(Locale.ROOT, "  placement: %,d instances, built online over the run at %.3f ms of place() per "
                    + "placed job; solver/ours = %.4f%n", s.ourInstances(),
                    figures.placeNanos() / 1e6 / Math.max(1, figures.placements()),
                    (double) r.instances() / s.ourInstances());
        }
        double vsSolver = solved.isEmpty() ? Double.NaN : solved.stream()
                .mapToDouble(r -> r.feasible() ? (double) r.instances() / r.snapshot().ourInstances() : Double.NaN)
                .min().orElse(Double.NaN);
        out.printf(Locale.ROOT, "RESULT placements_per_s=%d p99_decision_ms=%.2f churn_vs_lower_bound=%.3f "
                        + "vs_solver=%.3f%n", Math.round(figures.placementsPerSecond()), figures.decisionMs(99),
                figures.meanRatio(), vsSolver);
        return solved.stream().allMatch(SolverPacking.Result::feasible) ? 0 : 1;
    }

    private static double loadAverage() {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }
}
