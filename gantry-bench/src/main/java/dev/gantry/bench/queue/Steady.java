package dev.gantry.bench.queue;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.HdrHistogram.Histogram;

/**
 * Workload 1, the steady load: {@code config.producers()} threads together enqueue {@code rate} messages per second
 * for {@code config.steadyFor()}, each waking every {@code config.producerTick()} to enqueue, in one transaction,
 * the messages that have come due (at most {@code config.enqueueBatch()}), while the system's W workers run.
 *
 * <p>Completions per second are the messages pending at the start of the window (none, unless an earlier workload
 * left some) plus those enqueued in it, minus those still pending at its end, over the window. Then the backlog drains (for at most {@code config.drainTimeout()}) so that every message's enqueue→start
 * latency is recorded. A message still not started then counts with the time it has waited so far (from the end of
 * the window, which is less than its real wait), so the percentiles become lower bounds and are marked as such. The
 * latency runs from the producer's clock just before its enqueue call, so it includes the enqueue's commit.
 */
final class Steady {
    private Steady() {
    }

    /** Runs the steady load on a system whose workers run; its queue should be empty (see the class comment). */
    static Figures run(QueueSystem system, DataSource dataSource, BenchServer server, QueueBenchConfig config,
                       StartProbe probe, double rate, PrintStream out) throws Exception {
        try (Measurement measurement = Measurement.begin(server, dataSource, system)) {
            long pendingAtStart = system.pending();
            probe.reset();
            long start = System.nanoTime();
            long end = start + config.steadyFor().toNanos();
            ExecutorService producers = Executors.newFixedThreadPool(config.producers(),
                    Thread.ofPlatform().name("bench-producer-", 0).factory());
            long enqueued = 0;
            try {
                List<Future<Long>> sent = new ArrayList<>();
                for (int i = 0; i < config.producers(); i++) {
                    double share = rate / config.producers();
                    sent.add(producers.submit(() -> produce(system, share, start, end, config)));
                }
                for (Future<Long> f : sent) {
                    enqueued += f.get();
                }
            } finally {
                producers.shutdownNow();
            }
            long windowEnd = System.nanoTime();
            double window = (windowEnd - start) / 1e9;
            long pendingAtEnd = system.pending();
            long completedInWindow = Math.max(0, pendingAtStart + enqueued - pendingAtEnd);

            long deadline = System.nanoTime() + config.drainTimeout().toNanos();
            long pending = pendingAtEnd;
            while ((probe.starts() < enqueued || pending > 0) && System.nanoTime() < deadline) {
                Thread.sleep(BurnDown.POLL_MS);
                pending = system.pending();
            }
            long notStarted = Math.max(0, enqueued - probe.starts());
            Histogram latency = probe.latencyMicros();
            if (notStarted > 0) {
                latency.recordValueWithCount(Math.min(latency.getHighestTrackableValue(),
                        (System.nanoTime() - windowEnd) / 1_000), notStarted);
            }
            Measurement.Cost cost = measurement.end();
            out.printf(Locale.ROOT, "  steady: enqueued %,d in %.1f s (%.0f/s of %.0f/s asked), %,d pending at the "
                            + "start and %,d at the end of the window, %,d still pending and %,d not started after "
                            + "draining%n", enqueued, window, enqueued / window, rate, pendingAtStart, pendingAtEnd,
                    pending, notStarted);
            long finished = Math.max(0, pendingAtStart + enqueued - pending);
            return new Figures(system.name(), enqueued, completedInWindow, finished, enqueued / window,
                    completedInWindow / window, millis(latency, 50), millis(latency, 99),
                    latency.getTotalCount() == 0 ? Double.NaN : latency.getMaxValue() / 1000.0, notStarted,
                    cost, pending > 0);
        }
    }

    /** One producer's loop: returns how many messages it enqueued. */
    private static long produce(QueueSystem system, double perSecond, long start, long end, QueueBenchConfig config)
            throws Exception {
        long sent = 0;
        long tick = config.producerTick().toNanos();
        for (long now = System.nanoTime(); now < end; now = System.nanoTime()) {
            long due = (long) ((now - start) / 1e9 * perSecond) - sent;
            if (due > 0) {
                int n = (int) Math.min(due, config.enqueueBatch());
                system.enqueue(Collections.nCopies(n, System.nanoTime()));
                sent += n;
            }
            LockSupport.parkNanos(tick);
        }
        return sent;
    }

    private static double millis(Histogram h, double percentile) {
        return h.getTotalCount() == 0 ? Double.NaN : h.getValueAtPercentile(percentile) / 1000.0;
    }
}
