package dev.gantry.bench.queue;

import java.io.PrintStream;
import java.util.Collections;
import java.util.Locale;
import javax.sql.DataSource;

/**
 * Workload 2, the burn-down: {@code config.burnDownMessages()} messages are enqueued in batches of
 * {@code config.enqueueBatch()} (one transaction each) before any worker runs; then W workers start and the clock
 * runs from the first handler start until the database shows none pending (polled every {@value #POLL_MS} ms).
 * Completions per second over that span is the system's maximum throughput on this machine. WAL and dead tuples
 * cover the pre-enqueue too: a message's whole life.
 */
final class BurnDown {
    static final long POLL_MS = 20;

    private BurnDown() {
    }

    /** Runs the burn-down on a set-up system whose workers have not started; they are left running. */
    static Figures run(QueueSystem system, DataSource dataSource, BenchServer server, QueueBenchConfig config,
                       StartProbe probe, PrintStream out) throws Exception {
        int total = config.burnDownMessages();
        probe.reset();
        try (Measurement measurement = Measurement.begin(server, dataSource, system)) {
            long enqueueStart = System.nanoTime();
            for (int sent = 0; sent < total; ) {
                int n = Math.min(config.enqueueBatch(), total - sent);
                system.enqueue(Collections.nCopies(n, System.nanoTime()));
                sent += n;
            }
            double enqueueSeconds = (System.nanoTime() - enqueueStart) / 1e9;
            out.printf(Locale.ROOT, "  burn-down: enqueued %,d in %.1f s; starting %d workers%n", total,
                    enqueueSeconds, config.workers());

            long started = System.nanoTime();
            long deadline = started + config.burnDownTimeout().toNanos();
            system.start(probe);
            while (probe.starts() < total && System.nanoTime() < deadline) {
                Thread.sleep(POLL_MS);
            }
            long pending = system.pending();
            while (pending > 0 && System.nanoTime() < deadline) {
                Thread.sleep(POLL_MS);
                pending = system.pending();
            }
            long end = System.nanoTime();
            long first = probe.firstStartNanos() == 0 ? started : probe.firstStartNanos();
            long completed = total - pending;
            double seconds = Math.max(1e-9, (end - first) / 1e9);
            Measurement.Cost cost = measurement.end();
            out.printf(Locale.ROOT, "  burn-down: %,d completed in %.1f s after the first start (%.1f s after "
                    + "start())%s%n", completed, seconds, (end - started) / 1e9, pending > 0 ? ", TIMED OUT" : "");
            return new Figures(system.name(), total, completed, completed, total / enqueueSeconds,
                    completed / seconds, Double.NaN, Double.NaN, Double.NaN, total - Math.min(total, probe.starts()),
                    cost, pending > 0);
        }
    }
}
