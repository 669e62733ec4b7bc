package dev.gantry.bench.queue;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.HdrHistogram.Histogram;

/**
 * A load of producers beside the system's W running workers: {@code config.producers()} threads, each waking every
 * {@code config.producerTick()} to enqueue, in one transaction, the messages its {@link Load} says are due (at most
 * {@code config.enqueueBatch()}), for {@code duration}. Two loads:
 * <ul>
 *   <li>workload 1, the steady load: a fixed {@link Load.Rate}, shared by the producers;</li>
 *   <li>the sustained maximum: a {@link Load.Backlog} kept waiting to start, so that the system completes as many
 *       messages per second as it can while their enqueues share the machine with it (a burn-down has no enqueues
 *       beside it, so it overstates what the system can carry).</li>
 * </ul>
 *
 * <p>Completions per second are the messages pending at the start of the window (none, unless an earlier workload
 * left some) plus those enqueued in it, minus those still pending at its end, over the window. Then the backlog
 * drains (for at most {@code config.drainTimeout()}) so that every message's enqueue→start latency is recorded. A
 * message still not started then counts with the time it has waited so far (from the end of the window, which is
 * less than its real wait), so the percentiles become lower bounds and are marked as such. The latency runs from the
 * producer's clock just before its enqueue call, so it includes the enqueue's commit.
 */
final class Steady {
    private Steady() {
    }

    /** What the producers enqueue. */
    sealed interface Load {
        /** The workload's name and goal, for the progress line. */
        String describe();

        /** {@code perSecond} messages a second in all, whether or not the system keeps up. */
        record Rate(double perSecond) implements Load {
            @Override
            public String describe() {
                return String.format(Locale.ROOT, "steady (%,.0f/s asked)", perSecond);
            }
        }

        /** As many as keep {@code messages} waiting to start (enqueued, not started), however fast they start. */
        record Backlog(long messages) implements Load {
            @Override
            public String describe() {
                return String.format(Locale.ROOT, "sustained (keeping %,d waiting)", messages);
            }
        }
    }

    /** Runs {@code load} on a system whose workers run; its queue should be empty (see the class comment). */
    static Figures run(QueueSystem system, DataSource dataSource, BenchServer server, QueueBenchConfig config,
                       StartProbe probe, Load load, Duration duration, PrintStream out) throws Exception {
        try (Measurement measurement = Measurement.begin(server, dataSource, system)) {
            long pendingAtStart = system.pending();
            probe.reset();
            long start = System.nanoTime();
            long end = start + duration.toNanos();
            AtomicLong reserved = new AtomicLong(); // a backlog's messages taken on by the producers so far
            ExecutorService producers = Executors.newFixedThreadPool(config.producers(),
                    Thread.ofPlatform().name("bench-producer-", 0).factory());
            long enqueued = 0;
            try {
                List<Future<Long>> sent = new ArrayList<>();
                for (int i = 0; i < config.producers(); i++) {
                    sent.add(producers.submit(() -> produce(system, load, start, end, config, probe, reserved)));
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
            out.printf(Locale.ROOT, "  %s: enqueued %,d in %.1f s (%,.0f/s), %,d pending at the start and %,d at the "
                            + "end of the window, %,d still pending and %,d not started after draining%n",
                    load.describe(), enqueued, window, enqueued / window, pendingAtStart, pendingAtEnd, pending,
                    notStarted);
            long finished = Math.max(0, pendingAtStart + enqueued - pending);
            return new Figures(system.name(), enqueued, completedInWindow, finished, enqueued / window,
                    completedInWindow / window, millis(latency, 50), millis(latency, 99),
                    latency.getTotalCount() == 0 ? Double.NaN : latency.getMaxValue() / 1000.0, notStarted,
                    cost, pending > 0);
        }
    }

    /** One producer's loop: returns how many messages it enqueued. */
    private static long produce(QueueSystem system, Load load, long start, long end, QueueBenchConfig config,
                                StartProbe probe, AtomicLong reserved) throws Exception {
        long sent = 0;
        long tick = config.producerTick().toNanos();
        for (long now = System.nanoTime(); now < end; now = System.nanoTime()) {
            int n = switch (load) {
                case Load.Rate r -> (int) Math.min(config.enqueueBatch(),
                        (long) ((now - start) / 1e9 * r.perSecond() / config.producers()) - sent);
                case Load.Backlog b -> reserve(b.messages(), config.enqueueBatch(), probe, reserved);
            };
            if (n > 0) {
                system.enqueue(Collections.nCopies(n, System.nanoTime()));
                sent += n;
            }
            LockSupport.parkNanos(tick);
        }
        return sent;
    }

    /** Takes on what the backlog lacks (at most {@code batch}), so that two producers do not both fill the gap. */
    private static int reserve(long backlog, int batch, StartProbe probe, AtomicLong reserved) {
        while (true) {
            long taken = reserved.get();
            int n = (int) Math.min(batch, backlog - (taken - probe.starts()));
            if (n <= 0 || reserved.compareAndSet(taken, taken + n)) {
                return n;
            }
        }
    }

    private static double millis(Histogram h, double percentile) {
        return h.getTotalCount() == 0 ? Double.NaN : h.getValueAtPercentile(percentile) / 1000.0;
    }
}
