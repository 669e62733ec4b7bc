package dev.gantry.bench.scheduler;

import dev.gantry.scheduler.Assignment;
import dev.gantry.scheduler.Decision;
import dev.gantry.scheduler.Instance;
import dev.gantry.scheduler.InstanceType;
import dev.gantry.scheduler.OrgLimits;
import dev.gantry.scheduler.PendingJob;
import dev.gantry.scheduler.Placement;
import dev.gantry.scheduler.Resources;
import dev.gantry.scheduler.RunningJob;
import dev.gantry.scheduler.Snapshot;
import dev.gantry.scheduler.WaitReason;
import dev.gantry.scheduler.Waiting;
import java.io.PrintStream;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;
import org.HdrHistogram.Histogram;

/**
 * The churn simulation: a fleet on a virtual clock, jobs arriving (Poisson) and leaving when done, and one
 * {@link Placement#place} call per virtual second with the whole snapshot, exactly as the server will call it. Only
 * {@code place} is timed (on this one thread); building the snapshot and carrying out the decision are the
 * simulation's own work. Deterministic: the same config gives the same decisions.
 */
final class Churn {
    static final InstanceType TYPE = new InstanceType("c16",
            new Resources(ChurnConfig.VCPU, ChurnConfig.VCPU * 2048, ChurnConfig.VCPU * 10));
    private static final Instant START = Instant.parse("2026-11-30T00:00:00Z");

    /** A job on an instance; {@code end} (virtual seconds) is when it really ends, known to the simulation only. */
    private record SimJob(RunningJob running, int instance, long end, long seq) {
    }

    /** A pending job and how long it will really run. */
    private record Arrival(PendingJob job, long durationSeconds) {
    }

    private final ChurnConfig config;
    private final Workload workload;
    private final double arrivalsPerSecond;
    private final OrgLimits limits;
    private final String[] ids;
    private final List<List<RunningJob>> running = new ArrayList<>();
    private final Instance[] instances;
    private final boolean[] dirty;
    private final PriorityQueue<SimJob> departures = new PriorityQueue<>(
            (a, b) -> a.end() != b.end() ? Long.compare(a.end(), b.end()) : Long.compare(a.seq(), b.seq()));
    private final Map<String, Arrival> pending = new LinkedHashMap<>();
    private final Map<String, Integer> indexById = new HashMap<>();
    private long jobSeq;
    private double nextArrival;
    private int inUse;
    private long runningVcpu;

    Churn(ChurnConfig config) {
        this.config = config;
        this.workload = new Workload(new Random(config.seed()));
        double fleetVcpu = (double) config.instances() * ChurnConfig.VCPU;
        this.arrivalsPerSecond = config.utilisation() * fleetVcpu
                / (Workload.meanVcpu() * Workload.meanDurationSeconds());
        double runningJobs = arrivalsPerSecond * Workload.meanDurationSeconds();
        this.limits = new OrgLimits(workload.limits(runningJobs));
        this.ids = new String[config.instances()];
        this.instances = new Instance[config.instances()];
        this.dirty = new boolean[config.instances()];
        for (int k = 0; k < config.instances(); k++) {
            ids[k] = "i-%05d".formatted(k);
            indexById.put(ids[k], k);
            running.add(new ArrayList<>());
            dirty[k] = true;
        }
        this.nextArrival = workload.interArrival(arrivalsPerSecond);
    }

    double arrivalsPerSecond() {
        return arrivalsPerSecond;
    }

    OrgLimits limits() {
        return limits;
    }

    /** Runs the warm-up and the measured rounds, printing progress every virtual 10 minutes. */
    ChurnFigures run(PrintStream out) {
        Histogram decisionNanos = new Histogram(3_600_000_000_000L, 3);
        // CPU time of this thread inside place(): what the call costs when nothing else wants the cores.
        Histogram decisionCpuNanos = new Histogram(3_600_000_000_000L, 3);
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long placeNanos = 0;
        long placements = 0;
        long waits = 0;
        Map<WaitReason, Long> waitsByReason = new EnumMap<>(WaitReason.class);
        double ratioSum = 0;
        long inUseSum = 0;
        long lowerBoundSum = 0;
        long runningJobsSum = 0;
        long pendingSum = 0;
        List<PackingSnapshot> snapshots = new ArrayList<>();
        Gc gcBefore = Gc.now();
        int rounds = config.warmupRounds() + config.measuredRounds();
        int snapshotEvery = config.measuredRounds() / Math.max(1, config.solverSnapshots());
        for (int round = 1; round <= rounds; round++) {
            long now = round;
            endJobsDueBy(now);
            arriveUntil(now);
            Snapshot snapshot = snapshot(now);

            long cpu0 = threads.getCurrentThreadCpuTime();
            long t0 = System.nanoTime();
            Decision decision = Placement.place(snapshot);
            long elapsed = System.nanoTime() - t0;
            long cpu = threads.getCurrentThreadCpuTime() - cpu0;

            apply(decision, now);
            boolean measured = round > config.warmupRounds();
            if (round == config.warmupRounds()) {
                gcBefore = Gc.now();
            }
            if (measured) {
                decisionNanos.recordValue(elapsed);
                decisionCpuNanos.recordValue(Math.max(0, cpu));
                placeNanos += elapsed;
                placements += decision.assignments().size();
                waits += decision.waiting().size();
                for (Waiting w : decision.waiting()) {
                    waitsByReason.merge(w.reason(), 1L, Long::sum);
                }
                int lowerBound = lowerBound();
                ratioSum += lowerBound == 0 ? 1.0 : (double) inUse / lowerBound;
                inUseSum += inUse;
                lowerBoundSum += lowerBound;
                runningJobsSum += departures.size();
                pendingSum += pending.size();
                int measuredRound = round - config.warmupRounds();
                if (snapshots.size() < config.solverSnapshots() && measuredRound % snapshotEvery == snapshotEvery / 2) {
                    snapshots.add(capture(round));
                }
            }
            if (round % 600 == 0) {
                out.printf(Locale.ROOT, "  virtual %3d min%s: %,6d running, %,5d pending, %,5d of %,d instances in use"
                                + " (lower bound %,d), last decision %.2f ms%n", round / 60,
                        measured ? "" : " (warm-up)", departures.size(), pending.size(), inUse, config.instances(),
                        lowerBound(), elapsed / 1e6);
            }
        }
        int measuredRounds = config.measuredRounds();
        Gc gc = Gc.now().minus(gcBefore);
        return new ChurnFigures(measuredRounds, placements, waits, waitsByReason, placeNanos, decisionNanos,
                decisionCpuNanos, gc.collections(),
                gc.millis(),
                ratioSum / measuredRounds, (double) inUseSum / measuredRounds, (double) lowerBoundSum / measuredRounds,
                (double) runningJobsSum / measuredRounds, (double) pendingSum / measuredRounds, snapshots);
    }

    /** Collections and their total time so far, over all of the JVM's collectors. */
    private record Gc(long collections, long millis) {
        static Gc now() {
            long n = 0;
            long ms = 0;
            for (GarbageCollectorMXBean b : ManagementFactory.getGarbageCollectorMXBeans()) {
                n += Math.max(0, b.getCollectionCount());
                ms += Math.max(0, b.getCollectionTime());
            }
            return new Gc(n, ms);
        }

        Gc minus(Gc earlier) {
            return new Gc(collections - earlier.collections, millis - earlier.millis);
        }
    }

    /** ceil(total running vCPU / vCPU per instance). */
    private int lowerBound() {
        return (int) ((runningVcpu + ChurnConfig.VCPU - 1) / ChurnConfig.VCPU);
    }

    private void endJobsDueBy(long now) {
        while (!departures.isEmpty() && departures.peek().end() <= now) {
            SimJob done = departures.poll();
            List<RunningJob> jobs = running.get(done.instance());
            jobs.remove(done.running());
            dirty[done.instance()] = true;
            runningVcpu -= done.running().holds().vcpu();
            if (jobs.isEmpty()) {
                inUse--;
            }
        }
    }

    private void arriveUntil(long now) {
        while (nextArrival <= now) {
            String id = "j-" + jobSeq++;
            long duration = workload.durationSeconds();
            PendingJob job = new PendingJob(id, workload.resourceClass(), workload.organization(), at(nextArrival),
                    Instance.DEFAULT_POOL, workload.expected(duration));
            pending.put(id, new Arrival(job, duration));
            nextArrival += workload.interArrival(arrivalsPerSecond);
        }
    }

    /** The whole fleet and every pending job; instances whose jobs did not change are reused as they were. */
    private Snapshot snapshot(long now) {
        for (int k = 0; k < instances.length; k++) {
            if (dirty[k]) {
                instances[k] = Instance.ready(ids[k], TYPE, running.get(k));
                dirty[k] = false;
            }
        }
        List<PendingJob> jobs = new ArrayList<>(pending.size());
        pending.values().forEach(a -> jobs.add(a.job()));
        return new Snapshot(jobs, Arrays.asList(instances), limits, at(now));
    }

    private void apply(Decision decision, long now) {
        for (Assignment a : decision.assignments()) {
            Arrival arrival = pending.remove(a.jobId());
            int k = indexById.get(a.instanceId());
            PendingJob job = arrival.job();
            RunningJob r = new RunningJob(job.id(), job.demand(), job.organization(),
                    job.expectedDuration().map(at(now)::plus));
            List<RunningJob> jobs = running.get(k);
            if (jobs.isEmpty()) {
                inUse++;
            }
            jobs.add(r);
            dirty[k] = true;
            runningVcpu += job.demand().vcpu();
            departures.add(new SimJob(r, k, now + arrival.durationSeconds(), jobSeq++));
        }
    }

    /** What Timefold gets: the demands of every running job, and how many instances placement used for them. */
    private PackingSnapshot capture(int round) {
        List<Resources> demands = new ArrayList<>(departures.size());
        for (List<RunningJob> jobs : running) {
            for (RunningJob r : jobs) {
                demands.add(r.holds());
            }
        }
        return new PackingSnapshot(round, demands, inUse, lowerBound());
    }

    private static Instant at(double seconds) {
        return START.plus(Duration.ofMillis(Math.round(seconds * 1000)));
    }
}
