package dev.gantry.sim;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Turns {@link Result}s into what people and scripts read: the summary table, the JSON summary, the time series as
 * CSV and charts as SVG. Numbers are formatted with {@link Locale#ROOT}, so output does not depend on the machine.
 */
public final class Report {
    private Report() {
    }

    /** The summary of one run, as a table. */
    public static String table(Result r) {
        StringBuilder out = new StringBuilder();
        out.append(header(r)).append('\n');
        out.append(String.format(Locale.ROOT, "%-16s %-9s %7s %8s %8s %8s %8s %9s %8s%n", "workload", "class",
                "jobs", "p50 s", "p95 s", "p99 s", "max s", "instances", "cost"));
        for (Result.WorkloadSummary w : r.workloads()) {
            out.append(String.format(Locale.ROOT, "%-16s %-9s %7d %8.1f %8.1f %8.1f %8.1f %9.1f %8.2f%n", w.name(),
                    w.resourceClass(), w.jobsDone(), w.waitP50(), w.waitP95(), w.waitP99(), w.waitMax(),
                    w.instancesAvg(), w.cost()));
        }
        out.append(fleetLine(r)).append('\n');
        r.faults().ifPresent(f -> out.append(faultLines(f, "")));
        r.pool().ifPresent(p -> out.append(poolLines(p, "")));
        return out.toString();
    }

    /** Gantry and the baseline on the same scenario and seed, side by side. */
    public static String compare(Result gantry, Result baseline) {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "scenario %s, seed %d, %s virtual: gantry vs baseline%n",
                gantry.scenario(), gantry.seed(), hours(gantry.runForSeconds())));
        out.append(String.format(Locale.ROOT, "%-16s | %-35s | %s%n", "", "gantry: wait p50/p95/p99/max s, jobs",
                "baseline: wait p50/p95/p99/max s, jobs"));
        for (int i = 0; i < gantry.workloads().size(); i++) {
            Result.WorkloadSummary g = gantry.workloads().get(i);
            Result.WorkloadSummary b = baseline.workloads().get(i);
            out.append(String.format(Locale.ROOT, "%-16s | %-35s | %s%n", g.name(), waits(g), waits(b)));
        }
        out.append("gantry:   ").append(fleetLine(gantry)).append('\n');
        out.append("baseline: ").append(fleetLine(baseline)).append('\n');
        gantry.faults().ifPresent(f -> out.append(faultLines(f, "gantry:   ")));
        baseline.faults().ifPresent(f -> out.append(faultLines(f, "baseline: ")));
        gantry.pool().ifPresent(p -> out.append(poolLines(p, "gantry:   ")));
        baseline.pool().ifPresent(p -> out.append(poolLines(p, "baseline: ")));
        return out.toString();
    }

    /**
     * The summary for scripts: per workload {@code wait_p50_s}, {@code wait_p95_s}, {@code wait_p99_s},
     * {@code wait_max_s}, {@code jobs}, {@code instances_avg}, {@code cost}, and the fleet's totals.
     */
    public static String json(Result r) {
        StringBuilder out = new StringBuilder();
        out.append("{\"scenario\": ").append(quote(r.scenario())).append(", \"policy\": ").append(quote(r.policy()))
                .append(", \"seed\": ").append(r.seed()).append(", \"run_for_s\": ").append(r.runForSeconds())
                .append(",\n \"classes\": {");
        List<String> rows = new ArrayList<>();
        for (Result.WorkloadSummary w : r.workloads()) {
            rows.add(String.format(Locale.ROOT, "\n  %s: {\"class\": %s, \"wait_p50_s\": %.1f, \"wait_p95_s\": %.1f,"
                            + " \"wait_p99_s\": %.1f, \"wait_max_s\": %.1f, \"jobs\": %d, \"still_waiting\": %d,"
                            + " \"instances_avg\": %.2f, \"cost\": %.2f}", quote(w.name()), quote(w.resourceClass()),
                    w.waitP50(), w.waitP95(), w.waitP99(), w.waitMax(), w.jobsDone(), w.stillWaiting(),
                    w.instancesAvg(), w.cost()));
        }
        out.append(String.join(",", rows));
        Result.Totals t = r.totals();
        out.append(String.format(Locale.ROOT, "},\n \"fleet\": {\"instances_avg\": %.2f, \"cost\": %.2f,"
                + " \"utilisation\": %.3f, \"lower_bound_instances\": %.2f}}", t.instancesAvg(), t.cost(),
                t.utilisation(), t.lowerBoundInstances()));
        r.faults().ifPresent(f -> out.insert(out.length() - 1, String.format(Locale.ROOT, ",\n \"faults\":"
                + " {\"triggers\": %d, \"pipelines\": %d, \"duplicates\": %d, \"deduplicated\": %d,"
                + " \"refused\": %d, \"failed_to_start\": %d, \"queued_at_end\": %d, \"retriggers\": %d,"
                + " \"write_attempts\": %d, \"write_commits\": %d, \"attempts_per_request\": %.3f,"
                + " \"normal_writes_per_min\": %.1f, \"drain_peak_writes_per_min\": %.1f,"
                + " \"drain_load_ratio\": %.2f, \"pauses\": %d}", f.triggers(), f.pipelines(), f.duplicates(),
                f.deduplicated(), f.refused(), f.failedToStart(), f.queuedAtEnd(), f.retriggers(),
                f.writeAttempts(), f.writeCommits(), f.attemptsPerRequest(), f.normalWritesPerMinute(),
                f.drainPeakWritesPerMinute(), f.drainLoadRatio(), f.pauses())));
        r.pool().ifPresent(p -> {
            List<String> destinations = new ArrayList<>();
            for (Result.DestinationSummary d : p.destinations()) {
                destinations.add(String.format(Locale.ROOT, "%s: {\"calls\": %d, \"attempts\": %d, \"succeeded\": %d,"
                        + " \"failed\": %d, \"expired\": %d, \"short_circuited\": %d, \"max_workers\": %d,"
                        + " \"max_share\": %.3f}", quote(d.name()), d.calls(), d.attempts(), d.succeeded(),
                        d.failed(), d.expired(), d.shortCircuited(), d.maxWorkers(), d.maxShare()));
            }
            out.insert(out.length() - 1, String.format(Locale.ROOT, ",\n \"pool\": {\"workers\": %d,"
                    + " \"start_mean_outside_s\": %.3f, \"start_p95_outside_s\": %.3f, \"start_mean_during_s\": %.3f,"
                    + " \"start_p95_during_s\": %.3f, \"start_latency_change\": %.3f, \"destinations\": {%s}}",
                    p.workers(), p.startMeanOutside(), p.startP95Outside(), p.startMeanDuring(), p.startP95During(),
                    p.startLatencyChange(), String.join(", ", destinations)));
        });
        return out.toString();
    }

    /** Both runs of a comparison as one JSON object: {@code {"gantry": ..., "baseline": ...}}. */
    public static String json(Result gantry, Result baseline) {
        return "{\"gantry\": " + json(gantry) + ",\n\"baseline\": " + json(baseline) + "}";
    }

    /** The time series of waits and backlog: one row per window and workload. */
    public static String timeSeriesCsv(Result r) {
        StringBuilder out = new StringBuilder("time_s,workload,pending,started,wait_p50_s,wait_p95_s,wait_max_s\n");
        for (Result.Sample s : r.samples()) {
            out.append(String.format(Locale.ROOT, "%d,%s,%d,%d,%.1f,%.1f,%.1f%n", s.timeSeconds(), s.workload(),
                    s.pending(), s.started(), s.waitP50(), s.waitP95(), s.waitMax()));
        }
        return out.toString();
    }

    /** The fleet over time: instances paid for (up or starting) per type at the end of each window. */
    public static String fleetCsv(Result r) {
        StringBuilder out = new StringBuilder("time_s,type,instances\n");
        for (Result.FleetSample s : r.fleet()) {
            out.append(s.timeSeconds()).append(',').append(s.type()).append(',').append(s.instances()).append('\n');
        }
        return out.toString();
    }

    /**
     * Writes the summary (text and JSON), the CSV time series, the events and the charts (wait p95, backlog, fleet
     * by type) into {@code dir}, created if missing.
     */
    public static void write(Result r, Path dir) throws IOException {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("summary.txt"), table(r));
        Files.writeString(dir.resolve("summary.json"), json(r) + "\n");
        Files.writeString(dir.resolve("timeseries.csv"), timeSeriesCsv(r));
        Files.writeString(dir.resolve("fleet.csv"), fleetCsv(r));
        Files.writeString(dir.resolve("events.txt"), String.join("\n", r.events()) + "\n");
        String title = r.scenario() + " (" + r.policy() + ", seed " + r.seed() + ")";
        Files.writeString(dir.resolve("wait-p95.svg"), SvgChart.render(title + ": wait p95 per window",
                "seconds", series(r, Result.Sample::waitP95)));
        Files.writeString(dir.resolve("backlog.svg"), SvgChart.render(title + ": jobs pending",
                "jobs", series(r, s -> s.pending())));
        Map<String, List<double[]>> fleet = new LinkedHashMap<>();
        r.fleet().forEach(f -> fleet.computeIfAbsent(f.type(), k -> new ArrayList<>())
                .add(new double[] {f.timeSeconds() / 3600.0, f.instances()}));
        Files.writeString(dir.resolve("fleet.svg"), SvgChart.render(title + ": instances by type", "instances",
                fleet));
        if (r.pool().isPresent()) {
            Map<String, List<double[]>> held = new LinkedHashMap<>();
            r.pool().get().samples().forEach(s -> held.computeIfAbsent(s.destination(), k -> new ArrayList<>())
                    .add(new double[] {s.timeSeconds() / 3600.0, s.workers()}));
            Files.writeString(dir.resolve("pool.svg"), SvgChart.render(title + ": most workers held per window, of "
                    + r.pool().get().workers(), "workers", held));
        }
        if (r.faults().isPresent()) {
            Map<String, List<double[]>> writes = new LinkedHashMap<>();
            writes.put("attempted", perMinute(r.faults().get().attemptsPerMinute()));
            writes.put("committed", perMinute(r.faults().get().commitsPerMinute()));
            Files.writeString(dir.resolve("database.svg"), SvgChart.render(title + ": queue database writes",
                    "writes per minute", writes));
        }
    }

    private static Map<String, List<double[]>> series(Result r, java.util.function.ToDoubleFunction<Result.Sample> y) {
        Map<String, List<double[]>> out = new LinkedHashMap<>();
        r.samples().forEach(s -> out.computeIfAbsent(s.workload(), k -> new ArrayList<>())
                .add(new double[] {s.timeSeconds() / 3600.0, y.applyAsDouble(s)}));
        return out;
    }

    private static List<double[]> perMinute(List<Long> counts) {
        List<double[]> points = new ArrayList<>();
        for (int m = 0; m < counts.size(); m++) {
            points.add(new double[] {m / 60.0, counts.get(m)});
        }
        return points;
    }

    private static String poolLines(Result.PoolSummary p, String prefix) {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "%spool of %d: job start mean/p95 s %.2f/%.2f outside the failure,"
                        + " %.2f/%.2f during it (%+.0f %%)%n", prefix, p.workers(), p.startMeanOutside(),
                p.startP95Outside(), p.startMeanDuring(), p.startP95During(), p.startLatencyChange() * 100));
        for (Result.DestinationSummary d : p.destinations()) {
            out.append(String.format(Locale.ROOT, "%s  %-12s calls %d, attempts run %d, succeeded %d, failed for"
                            + " good %d; attempts expired waiting %d, refused by open breaker %d; most workers %d"
                            + " (%.0f %%)%n", prefix, d.name(), d.calls(), d.attempts(), d.succeeded(), d.failed(),
                    d.expired(), d.shortCircuited(), d.maxWorkers(), d.maxShare() * 100));
        }
        return out.toString();
    }

    private static String faultLines(Result.FaultSummary f, String prefix) {
        return String.format(Locale.ROOT, "%striggers %d, pipelines %d, duplicates %d (deduplicated %d), refused %d,"
                        + " failed to start %d, queued at end %d, retriggers %d%n", prefix, f.triggers(),
                f.pipelines(), f.duplicates(), f.deduplicated(), f.refused(), f.failedToStart(), f.queuedAtEnd(),
                f.retriggers())
                + String.format(Locale.ROOT, "%sdatabase: %d write attempts for %d requests (%.2f each), %d"
                        + " committed; writes/min normal %.1f, drain peak %.0f (%.2fx); self-pauses %d%n", prefix,
                f.writeAttempts(), f.firstWrites(), f.attemptsPerRequest(), f.writeCommits(),
                f.normalWritesPerMinute(), f.drainPeakWritesPerMinute(), f.drainLoadRatio(), f.pauses());
    }

    private static String header(Result r) {
        return String.format(Locale.ROOT, "scenario %s, policy %s, seed %d, %s virtual", r.scenario(), r.policy(),
                r.seed(), hours(r.runForSeconds()));
    }

    private static String waits(Result.WorkloadSummary w) {
        return String.format(Locale.ROOT, "%.0f/%.0f/%.0f/%.0f, %d", w.waitP50(), w.waitP95(), w.waitP99(),
                w.waitMax(), w.jobsDone());
    }

    private static String fleetLine(Result r) {
        Result.Totals t = r.totals();
        return String.format(Locale.ROOT, "fleet: %.1f instances on average (lower bound %.1f), cost %.2f,"
                + " utilisation %.0f %%", t.instancesAvg(), t.lowerBoundInstances(), t.cost(), t.utilisation() * 100);
    }

    private static String hours(long seconds) {
        return String.format(Locale.ROOT, "%.1fh", seconds / 3600.0);
    }

    private static String quote(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
