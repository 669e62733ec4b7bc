package dev.gantry.sim;

import java.util.Arrays;

/** What a run with a queue database counts: triggers, pipelines, duplicates, refusals, jobs lost. Not thread-safe. */
final class FaultCounts {
    long triggers;
    long firstWrites;
    long pipelines;
    long duplicates;
    long deduplicated;
    long refused;
    long failedToStart;
    long retriggers;

    /**
     * The summary: write attempts per first attempt, and the database's load (write attempts per minute) before it
     * degraded against the busiest sample window after it recovered, while the backlog drained.
     */
    Result.FaultSummary summary(Scenario scenario, QueueDatabase database, int pauses, int queuedAtEnd) {
        Resilience.Database spec = scenario.resilience().database().orElseThrow();
        long[] perMinute = database.attemptsPerMinute();
        int from = (int) scenario.warmUp().toMinutes();
        int until = (int) Math.min(spec.degradedAt().toMinutes(), perMinute.length);
        double normal = 0;
        for (int m = from; m < until; m++) {
            normal += perMinute[m];
        }
        normal = until > from ? normal / (until - from) : 0;
        // Load over a sample window, not a single minute: one minute of Poisson arrivals swings too much to compare.
        int window = (int) Math.max(1, scenario.sampleEvery().toMinutes());
        int recovered = (int) Math.ceil(spec.recoveredAt().toSeconds() / 60.0);
        int last = (int) Math.min(perMinute.length, scenario.runFor().toMinutes());
        double peak = 0;
        for (int m = recovered; m + window <= last; m += window) {
            long sum = 0;
            for (int i = m; i < m + window; i++) {
                sum += perMinute[i];
            }
            peak = Math.max(peak, (double) sum / window);
        }
        return new Result.FaultSummary(triggers, pipelines, duplicates, deduplicated, refused, failedToStart,
                queuedAtEnd, retriggers, database.attempts(), database.commits(), firstWrites,
                firstWrites == 0 ? 0 : (double) database.attempts() / firstWrites, normal, peak, pauses,
                Arrays.stream(perMinute).boxed().toList(),
                Arrays.stream(database.commitsPerMinute()).boxed().toList());
    }
}
