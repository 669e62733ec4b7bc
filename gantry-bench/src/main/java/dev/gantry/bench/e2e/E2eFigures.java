package dev.gantry.bench.e2e;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** One system's figures in {@code bench e2e}: start latency percentiles (ms) and sustained pipelines per minute. */
record E2eFigures(double p50StartMs, double p95StartMs, int samples, double pipelinesPerMinute, Duration window) {

    static E2eFigures of(List<Double> latencies, double perMinute, Duration window) {
        List<Double> sorted = new ArrayList<>(latencies);
        Collections.sort(sorted);
        return new E2eFigures(percentile(sorted, 50), percentile(sorted, 95), sorted.size(), perMinute, window);
    }

    /** The nearest-rank percentile of sorted values. */
    static double percentile(List<Double> sorted, int p) {
        int rank = (int) Math.ceil(p / 100.0 * sorted.size());
        return sorted.get(Math.max(0, rank - 1));
    }
}
