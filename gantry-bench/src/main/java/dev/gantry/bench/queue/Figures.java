package dev.gantry.bench.queue;

/**
 * What one workload measured for one system.
 *
 * @param system           the system's name
 * @param messages         messages enqueued in the workload
 * @param completed        burn-down: of those, completed when the workload ended; steady and sustained:
 *                         completions in the window (including any that an earlier workload left pending)
 * @param finished         messages completed by the end of the measurement, whose whole life its WAL covers
 *                         (steady and sustained: the window and the drain after it)
 * @param enqueuePerSecond messages enqueued per second (burn-down: the pre-enqueue; steady and sustained: the
 *                         achieved rate)
 * @param perSecond        completions per second (burn-down: from the first start to the last completion; steady
 *                         and sustained: completions in the window divided by the window)
 * @param p50Ms            enqueue→start median in ms; NaN where not measured (burn-down)
 * @param p99Ms            enqueue→start 99th percentile in ms; NaN where not measured
 * @param maxMs            enqueue→start maximum in ms; NaN where not measured
 * @param notStarted       messages not started when the workload gave up waiting; each counts in the latencies
 *                         with the time it had waited by then, so the percentiles are lower bounds
 * @param cost             WAL written on the whole server during the workload, dead tuples in the system's tables
 *                         after it and at their highest (sampled every second), and the machine's CPU
 * @param timedOut         true when the workload stopped at its timeout with messages left
 */
record Figures(String system, long messages, long completed, long finished, double enqueuePerSecond,
               double perSecond, double p50Ms, double p99Ms, double maxMs, long notStarted, Measurement.Cost cost,
               boolean timedOut) {

    /** True when the latency percentiles are lower bounds, because some messages never started. */
    boolean latencyLowerBound() {
        return notStarted > 0;
    }

    /**
     * WAL bytes per finished message (per enqueued one if none finished). Not per completion in the steady window:
     * the WAL runs on through the drain, so a system that fell behind would be charged its backlog's WAL on the
     * window's fewer completions.
     */
    double walPerMessage() {
        return (double) cost.walBytes() / Math.max(1, finished > 0 ? finished : messages);
    }
}
