package dev.gantry.bench.queue;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * What the no-op handlers of every system call when a message starts: it counts starts and records the time from
 * enqueue to start. The enqueue time travels in the message itself ({@link System#nanoTime()} taken by the producer
 * just before its enqueue transaction), so the figure includes the enqueue's own commit, the wait for a poll, the
 * claim and the hand-off to a handler thread.
 *
 * <p>Thread-safe. {@link #reset()} starts a new measurement: a message enqueued before it (left over from an earlier
 * workload) is counted apart, as {@link #staleStarts()}, and its latency is not recorded.
 */
final class StartProbe {
    /** Latencies above this (in µs) are recorded as this; no workload waits that long. */
    private static final long HIGHEST_MICROS = TimeUnit.MINUTES.toMicros(30);

    private record Window(long since, Histogram latencyMicros, AtomicLong starts, AtomicLong stale,
                          AtomicLong firstStart) {
        Window() {
            this(System.nanoTime(), new ConcurrentHistogram(HIGHEST_MICROS, 3), new AtomicLong(), new AtomicLong(),
                    new AtomicLong());
        }
    }

    private volatile Window window = new Window();

    /** Called by a handler when a message starts; {@code enqueuedNanos} is the producer's nanoTime. */
    void started(long enqueuedNanos) {
        long now = System.nanoTime();
        Window w = window;
        if (enqueuedNanos - w.since() < 0) {
            w.stale().incrementAndGet();
            return;
        }
        w.latencyMicros().recordValue(Math.min(HIGHEST_MICROS, Math.max(0, (now - enqueuedNanos) / 1_000)));
        w.firstStart().compareAndSet(0, now);
        w.starts().incrementAndGet();
    }

    void reset() {
        window = new Window();
    }

    /** Starts of messages enqueued since the last reset. */
    long starts() {
        return window.starts().get();
    }

    /** Starts of messages enqueued before the last reset. */
    long staleStarts() {
        return window.stale().get();
    }

    /** The nanoTime of the first start since the last reset, or 0 when nothing has started. */
    long firstStartNanos() {
        return window.firstStart().get();
    }

    /** A copy of the enqueue→start latencies since the last reset, in microseconds. */
    Histogram latencyMicros() {
        return window.latencyMicros().copy();
    }
}
