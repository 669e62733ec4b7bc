package dev.gantry.bench.queue;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Prints the tables of a run and its final line,
 * {@code RESULT gantry_per_s=N db_scheduler_per_s=N jobrunr_per_s=N ratio_vs_db_scheduler=X p99_start_ms=N
 * wal_bytes_per_msg=N dead_tuples_after=N}:
 * <ul>
 *   <li>{@code *_per_s}: each system's burn-down completions per second (its maximum throughput), rounded;</li>
 *   <li>{@code ratio_vs_db_scheduler}: gantry-queue's burn-down throughput over db-scheduler's, two decimals;</li>
 *   <li>{@code p99_start_ms}, {@code wal_bytes_per_msg}, {@code dead_tuples_after}: gantry-queue's in the steady
 *       workload (p99 rounded up, so the figure never flatters the 25 ms target; a lower bound when some
 *       messages never started, which the table marks with ≥).</li>
 * </ul>
 * A figure that could not be measured (a system failed) is {@code nan}.
 */
final class Report {
    static final String GANTRY = "gantry-queue";
    static final String DB_SCHEDULER = "db-scheduler";
    static final String JOBRUNR = "jobrunr";

    private Report() {
    }

    static void burnDownTable(PrintStream out, List<Figures> rows) {
        out.printf(Locale.ROOT, "%-13s %9s %11s %13s %9s %10s %11s %10s %9s %6s%n", "system", "messages",
                "enqueue/s", "completions/s", "vs gantry", "WAL B/msg", "dead after", "dead peak", "CPU busy", "steal");
        double base = perSecond(rows, GANTRY);
        for (Figures f : rows) {
            out.printf(Locale.ROOT, "%-13s %,9d %,11.0f %,13.0f %9s %,10.0f %,11d %,10d %9s %6s%s%n", f.system(),
                    f.messages(), f.enqueuePerSecond(), f.perSecond(), ratio(f.perSecond(), base),
                    f.walPerMessage(), f.cost().deadAfter(), f.cost().deadPeak(), percent(f.cost().cpuBusy()),
                    percent(f.cost().cpuSteal()), f.timedOut()
                            ? String.format(Locale.ROOT, "  (timed out: %,d of %,d completed)", f.completed(),
                            f.messages()) : "");
        }
    }

    /** The sustained maxima, each also as a share of the system's own burn-down. */
    static void sustainedTable(PrintStream out, List<Figures> rows, List<Figures> burnDown) {
        out.printf(Locale.ROOT, "%-13s %9s %13s %9s %14s %10s %11s %10s %9s %6s%n", "system", "enqueue/s",
                "completions/s", "vs gantry", "of burn-down", "WAL B/msg", "dead after", "dead peak", "CPU busy",
                "steal");
        double base = perSecond(rows, GANTRY);
        for (Figures f : rows) {
            out.printf(Locale.ROOT, "%-13s %,9.0f %,13.0f %9s %14s %,10.0f %,11d %,10d %9s %6s%n", f.system(),
                    f.enqueuePerSecond(), f.perSecond(), ratio(f.perSecond(), base),
                    ratio(f.perSecond(), perSecond(burnDown, f.system())), f.walPerMessage(), f.cost().deadAfter(),
                    f.cost().deadPeak(), percent(f.cost().cpuBusy()), percent(f.cost().cpuSteal()));
        }
    }

    static void steadyTable(PrintStream out, List<Figures> rows) {
        out.printf(Locale.ROOT, "%-13s %9s %13s %9s %9s %10s %10s %11s %10s %11s %10s %9s %6s%n", "system",
                "enqueue/s", "completions/s", "vs gantry", "p50 ms", "p99 ms", "max ms", "not started", "WAL B/msg",
                "dead after", "dead peak", "CPU busy", "steal");
        double base = perSecond(rows, GANTRY);
        for (Figures f : rows) {
            String atLeast = f.latencyLowerBound() ? "≥" : "";
            out.printf(Locale.ROOT, "%-13s %,9.0f %,13.0f %9s %9s %10s %10s %,11d %,10.0f %,11d %,10d %9s %6s%n",
                    f.system(), f.enqueuePerSecond(), f.perSecond(), ratio(f.perSecond(), base),
                    atLeast + ms(f.p50Ms()), atLeast + ms(f.p99Ms()), atLeast + ms(f.maxMs()), f.notStarted(),
                    f.walPerMessage(), f.cost().deadAfter(), f.cost().deadPeak(), percent(f.cost().cpuBusy()),
                    percent(f.cost().cpuSteal()));
        }
    }

    /** The final line, from the burn-down rows of every system and gantry-queue's steady row. */
    static String resultLine(List<Figures> burnDown, List<Figures> steady) {
        double gantry = perSecond(burnDown, GANTRY);
        double dbScheduler = perSecond(burnDown, DB_SCHEDULER);
        Optional<Figures> gantrySteady = find(steady, GANTRY);
        return "RESULT gantry_per_s=" + whole(gantry)
                + " db_scheduler_per_s=" + whole(dbScheduler)
                + " jobrunr_per_s=" + whole(perSecond(burnDown, JOBRUNR))
                + " ratio_vs_db_scheduler=" + (Double.isFinite(gantry / dbScheduler)
                        ? String.format(Locale.ROOT, "%.2f", gantry / dbScheduler) : "nan")
                + " p99_start_ms=" + gantrySteady.map(f -> Double.isNaN(f.p99Ms()) ? "nan"
                        : Long.toString((long) Math.ceil(f.p99Ms()))).orElse("nan")
                + " wal_bytes_per_msg=" + gantrySteady.map(f -> whole(f.walPerMessage())).orElse("nan")
                + " dead_tuples_after=" + gantrySteady.map(f -> Long.toString(f.cost().deadAfter())).orElse("nan");
    }

    private static Optional<Figures> find(List<Figures> rows, String system) {
        return rows.stream().filter(f -> f.system().equals(system)).findFirst();
    }

    private static double perSecond(List<Figures> rows, String system) {
        return find(rows, system).map(Figures::perSecond).orElse(Double.NaN);
    }

    private static String ratio(double value, double base) {
        return Double.isFinite(value / base) ? String.format(Locale.ROOT, "%.2f×", value / base) : "-";
    }

    private static String ms(double value) {
        return String.format(Locale.ROOT, "%,.1f", value);
    }

    private static String percent(double share) {
        return Double.isFinite(share) ? String.format(Locale.ROOT, "%.0f %%", share * 100) : "-";
    }

    private static String whole(double value) {
        return Double.isFinite(value) ? Long.toString(Math.round(value)) : "nan";
    }
}
