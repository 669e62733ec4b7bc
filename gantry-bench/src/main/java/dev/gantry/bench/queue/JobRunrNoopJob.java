package dev.gantry.bench.queue;

/**
 * The job JobRunr runs in {@code bench queue}: it only tells the probe that it started. Public, with a static
 * method, because JobRunr finds and invokes jobs by reflection from the job's stored JSON.
 */
public final class JobRunrNoopJob {
    static volatile StartProbe probe;

    private JobRunrNoopJob() {
    }

    /** Records that a job enqueued at {@code enqueuedNanos} ({@link System#nanoTime()}) started. */
    public static void run(Long enqueuedNanos) {
        probe.started(enqueuedNanos);
    }
}
