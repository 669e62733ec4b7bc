package dev.gantry.bench.queue;

import com.zaxxer.hikari.HikariDataSource;
import dev.gantry.bench.Suite;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * {@code bench queue}: gantry-queue, db-scheduler and JobRunr, one after the other, each on a fresh database of the
 * same embedded PostgreSQL (fsync and synchronous commit on), through the same workloads with W no-op workers: the
 * {@link BurnDown} of a pre-enqueued backlog, which gives each system's maximum throughput with nothing else running;
 * its sustained maximum, the most it completes while producers keep a backlog waiting ({@link Steady.Load.Backlog});
 * then the {@link Steady} load at {@code steadyFraction} of gantry-queue's burn-down throughput. Gantry-queue also runs
 * the steady load at {@code steadyFraction} of its own sustained maximum, the other reading of "its maximum rate".
 * Prints a table per workload and ends with the line {@link Report#resultLine} describes (from the burn-down and the
 * steady load at the burn-down's fraction). Exit code 1 when a system failed.
 */
public final class QueueSuite implements Suite {

    @Override
    public String name() {
        return "queue";
    }

    @Override
    public String description() {
        return "gantry-queue vs db-scheduler and JobRunr on one embedded PostgreSQL: burn-down, sustained maximum and "
                + "steady load";
    }

    @Override
    public int run(boolean quick, PrintStream out, PrintStream err) throws Exception {
        QueueBenchConfig config = QueueBenchConfig.of(quick).withSteadyFraction(steadyFraction());
        List<Supplier<QueueSystem>> systems = selected(List.of(GantrySystem::new, DbSchedulerSystem::new,
                JobRunrSystem::new));
        List<Figures> burnDown = new ArrayList<>();
        List<Figures> sustained = new ArrayList<>();
        List<Figures> steady = new ArrayList<>();
        List<Figures> steadyOfSustained = new ArrayList<>();
        boolean failed = false;
        out.println("bench queue" + (quick ? " --quick" : "") + ": " + config.describe());
        out.printf(Locale.ROOT, "JVM: %s %s, %d processors; %s%n", System.getProperty("java.vm.name"),
                Runtime.version(), Runtime.getRuntime().availableProcessors(), load());
        try (BenchServer server = BenchServer.start()) {
            out.println(server.durability());
            StartProbe probe = new StartProbe();
            double rate = Double.NaN;
            double rateOfSustained = Double.NaN;
            for (Supplier<QueueSystem> supplier : systems) {
                QueueSystem system = supplier.get();
                String database = "bench_" + system.name().replace('-', '_');
                out.println();
                out.println("== " + system.describe(config));
                try {
                    warmUp(supplier.get(), server, config.warmUp(), probe, out);
                } catch (Exception e) {
                    failed = true;
                    err.println(system.name() + "'s warm-up failed:");
                    e.printStackTrace(err);
                    continue;
                }
                try (HikariDataSource dataSource = server.createDatabase(database, config.poolSize()); system) {
                    system.setup(dataSource, config);
                    Figures burn = BurnDown.run(system, dataSource, server, config, probe, out);
                    burnDown.add(burn);
                    if (burn.timedOut()) {
                        drainLeftovers(system, config, out);
                    }
                    Figures most = Steady.run(system, dataSource, server, config, probe,
                            new Steady.Load.Backlog(config.sustainedBacklog()), config.sustainedFor(), out);
                    sustained.add(most);
                    if (system instanceof GantrySystem) {
                        rate = Math.floor(burn.perSecond() * config.steadyFraction());
                        rateOfSustained = Math.floor(most.perSecond() * config.steadyFraction());
                    }
                    if (Double.isNaN(rate)) {
                        err.println("no steady run for " + system.name() + ": gantry-queue's rate is unknown");
                    } else {
                        steady.add(Steady.run(system, dataSource, server, config, probe, new Steady.Load.Rate(rate),
                                config.steadyFor(), out));
                    }
                    if (system instanceof GantrySystem) {
                        steadyOfSustained.add(Steady.run(system, dataSource, server, config, probe,
                                new Steady.Load.Rate(rateOfSustained), config.steadyFor(), out));
                    }
                } catch (Exception e) {
                    failed = true;
                    err.println(system.name() + " failed; its figures are missing:");
                    e.printStackTrace(err);
                }
                server.dropDatabase(database);
            }
            out.println();
            out.printf(Locale.ROOT, "Burn-down of %,d messages, %d workers (completions/s from the first start "
                    + "to the last completion):%n", config.burnDownMessages(), config.workers());
            Report.burnDownTable(out, burnDown);
            out.println();
            out.printf(Locale.ROOT, "Sustained maximum: producers keep %,d messages waiting for %d s, %d workers "
                    + "(completions/s in the window, with their enqueues beside them):%n", config.sustainedBacklog(),
                    config.sustainedFor().toSeconds(), config.workers());
            Report.sustainedTable(out, sustained, burnDown);
            out.println();
            out.printf(Locale.ROOT, "Steady load: %,.0f messages/s (%.0f%% of gantry-queue's burn-down) for %d s, "
                            + "%d workers; latency = enqueue call → handler start:%n", rate,
                    config.steadyFraction() * 100, config.steadyFor().toSeconds(), config.workers());
            Report.steadyTable(out, steady);
            out.println();
            out.printf(Locale.ROOT, "Steady load at %.0f%% of gantry-queue's sustained maximum instead: %,.0f "
                    + "messages/s for %d s:%n", config.steadyFraction() * 100, rateOfSustained,
                    config.steadyFor().toSeconds());
            Report.steadyTable(out, steadyOfSustained);
            out.println();
            out.println("at the end: " + load() + " (other processes on this machine skew the figures)");
            out.println(Report.resultLine(burnDown, steady));
        }
        return failed ? 1 : 0;
    }

    /**
     * Runs both workloads once on a system of its own, on a database of its own that is dropped afterwards, so that
     * the measured run starts with its code compiled (the first system would otherwise pay for the JIT in its
     * figures, and the later ones less, as they share the JDBC driver and the pool). The steady load runs at
     * {@code steadyFraction} of the system's own warm-up burn-down rate, which every system can keep up with.
     */
    private static void warmUp(QueueSystem system, BenchServer server, QueueBenchConfig config, StartProbe probe,
                               PrintStream out) throws Exception {
        String database = "warmup_" + system.name().replace('-', '_');
        out.println("  warm-up (not measured):");
        try (HikariDataSource dataSource = server.createDatabase(database, config.poolSize()); system) {
            system.setup(dataSource, config);
            Figures burn = BurnDown.run(system, dataSource, server, config, probe, out);
            if (burn.timedOut()) {
                drainLeftovers(system, config, out);
            }
            Steady.run(system, dataSource, server, config, probe,
                    new Steady.Load.Rate(Math.floor(burn.perSecond() * config.steadyFraction())), config.steadyFor(),
                    out);
        } finally {
            server.dropDatabase(database);
        }
        out.println("  measured:");
    }

    /**
     * The systems named in the system property {@value #ONLY} (comma-separated, e.g. {@code gantry-queue}), for
     * trying a change quickly; all of them when it is unset. A partial run's RESULT line has {@code nan} for the rest.
     */
    private static List<Supplier<QueueSystem>> selected(List<Supplier<QueueSystem>> all) {
        String only = System.getProperty(ONLY);
        if (only == null || only.isBlank()) {
            return all;
        }
        List<String> names = List.of(only.split(","));
        List<Supplier<QueueSystem>> picked = all.stream().filter(s -> names.contains(s.get().name())).toList();
        if (picked.isEmpty()) {
            throw new IllegalArgumentException(ONLY + "=" + only + " names no system; the systems are gantry-queue, "
                    + "db-scheduler and jobrunr");
        }
        return picked;
    }

    static final String ONLY = "bench.queue.only";

    /**
     * The steady load's share of gantry-queue's burn-down rate: the system property {@value #STEADY_FRACTION}
     * (e.g. {@code 0.5}, to see the latency at lighter loads), {@link QueueBenchConfig#STEADY_FRACTION} when unset.
     */
    private static double steadyFraction() {
        String text = System.getProperty(STEADY_FRACTION);
        if (text == null || text.isBlank()) {
            return QueueBenchConfig.STEADY_FRACTION;
        }
        try {
            return Double.parseDouble(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(STEADY_FRACTION + "=" + text + " is not a number; give a fraction "
                    + "such as 0.5");
        }
    }

    static final String STEADY_FRACTION = "bench.queue.steadyFraction";

    /** The system load average over the last minute, which tells whether something else was running. */
    private static String load() {
        return String.format(Locale.ROOT, "load average %.2f",
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }

    /**
     * Waits (up to the drain timeout) for what a timed-out burn-down left, so that those messages' starts do not
     * count in the steady load's latencies; the steady figures then begin on an empty queue or say that they did not.
     */
    private static void drainLeftovers(QueueSystem system, QueueBenchConfig config, PrintStream out)
            throws Exception {
        long deadline = System.nanoTime() + config.drainTimeout().toNanos();
        long pending = system.pending();
        while (pending > 0 && System.nanoTime() < deadline) {
            Thread.sleep(BurnDown.POLL_MS);
            pending = system.pending();
        }
        out.printf(Locale.ROOT, "  %,d burn-down messages still pending after waiting %d s more%s%n", pending,
                config.drainTimeout().toSeconds(), pending > 0 ? "; they count as pending at the start of the steady window, not in its latencies" : "");
    }
}
