package dev.gantry.bench.scheduler;

import ai.timefold.solver.core.api.solver.Solver;
import ai.timefold.solver.core.api.solver.SolverFactory;
import ai.timefold.solver.core.config.localsearch.LocalSearchPhaseConfig;
import ai.timefold.solver.core.config.solver.SolverConfig;
import dev.gantry.scheduler.Resources;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * Timefold Solver packs the running jobs of one {@link PackingSnapshot} offline onto as few instances as it can in
 * its time limit, starting from first fit decreasing and improving it by local search (Timefold's default: late
 * acceptance over change and swap moves) until the limit.
 *
 * <p>The start is computed here, not by Timefold's construction heuristic: at this size (about 16,000 jobs and
 * 3,600 instances) Timefold's first fit decreasing scores every instance for every job and placed about 70 jobs a
 * second on this machine, so it would need minutes just to build a first solution. First fit decreasing (largest
 * job first, each onto the lowest-numbered instance with room) is the textbook heuristic, independent of
 * {@code Placement}. Timefold may use as many instances as the start or placement did, whichever is more. The
 * instance count and feasibility are recomputed from the solution, not read from the score.
 */
final class SolverPacking {
    private SolverPacking() {
    }

    /** What the solver reached on one snapshot. */
    record Result(PackingSnapshot snapshot, int instances, boolean feasible, double seconds, int startInstances,
                  double startSeconds, String description) {
    }

    static Result solve(PackingSnapshot snapshot, Resources capacity, Duration limit) {
        List<PackedJob> jobs = new ArrayList<>();
        for (int k = 0; k < snapshot.demands().size(); k++) {
            Resources d = snapshot.demands().get(k);
            jobs.add(new PackedJob(k, d.vcpu(), d.memoryMb(), d.diskGb()));
        }
        long t0 = System.nanoTime();
        int[] start = firstFitDecreasing(jobs, capacity);
        int startBins = Arrays.stream(start).max().orElse(-1) + 1;
        double startSeconds = (System.nanoTime() - t0) / 1e9;
        List<Bin> bins = new ArrayList<>();
        for (int k = 0; k < Math.max(startBins, snapshot.ourInstances()); k++) {
            bins.add(new Bin(k, capacity.vcpu(), capacity.memoryMb(), capacity.diskGb()));
        }
        for (int k = 0; k < jobs.size(); k++) {
            jobs.get(k).setBin(bins.get(start[k]));
        }
        SolverConfig config = new SolverConfig()
                .withSolutionClass(BinPacking.class)
                .withEntityClasses(PackedJob.class)
                .withConstraintProviderClass(PackingConstraints.class)
                .withTerminationSpentLimit(limit)
                .withPhases(new LocalSearchPhaseConfig());
        Solver<BinPacking> solver = SolverFactory.<BinPacking>create(config).buildSolver();
        long t1 = System.nanoTime();
        BinPacking best = solver.solve(new BinPacking(bins, jobs));
        double seconds = (System.nanoTime() - t1) / 1e9;
        return check(snapshot, best, startBins, startSeconds, seconds, "Timefold " + timefoldVersion()
                + ", local search from first fit decreasing, score " + best.getScore());
    }

    /** The bin of each job: largest first (vCPU, then memory, then disk), each onto the first bin with room. */
    static int[] firstFitDecreasing(List<PackedJob> jobs, Resources capacity) {
        Integer[] order = new Integer[jobs.size()];
        for (int k = 0; k < order.length; k++) {
            order[k] = k;
        }
        Arrays.sort(order, Comparator.comparing((Integer k) -> jobs.get(k), new PackedJob.BySize()).reversed());
        int[] bin = new int[jobs.size()];
        List<int[]> free = new ArrayList<>();
        // Bins that are full in vCPU are skipped from the front on, so a pass costs about jobs × open bins with room.
        int firstOpen = 0;
        for (int k : order) {
            PackedJob j = jobs.get(k);
            int b = firstOpen;
            while (b < free.size() && !(free.get(b)[0] >= j.getVcpu() && free.get(b)[1] >= j.getMemoryMb()
                    && free.get(b)[2] >= j.getDiskGb())) {
                b++;
            }
            if (b == free.size()) {
                free.add(new int[] {capacity.vcpu(), capacity.memoryMb(), capacity.diskGb()});
            }
            int[] f = free.get(b);
            f[0] -= j.getVcpu();
            f[1] -= j.getMemoryMb();
            f[2] -= j.getDiskGb();
            bin[k] = b;
            while (firstOpen < free.size() && free.get(firstOpen)[0] == 0) {
                firstOpen++;
            }
        }
        return bin;
    }

    private static String timefoldVersion() {
        try (InputStream in = SolverFactory.class.getResourceAsStream(
                "/META-INF/maven/ai.timefold.solver/timefold-solver-core/pom.properties")) {
            Properties p = new Properties();
            if (in != null) {
                p.load(in);
            }
            return p.getProperty("version", "(version unknown)");
        } catch (IOException e) {
            return "(version unknown)";
        }
    }

    private static Result check(PackingSnapshot snapshot, BinPacking best, int startInstances, double startSeconds,
                                double seconds, String description) {
        Map<Bin, int[]> used = new HashMap<>();
        boolean assigned = true;
        for (PackedJob j : best.getJobs()) {
            if (j.getBin() == null) {
                assigned = false;
                continue;
            }
            int[] u = used.computeIfAbsent(j.getBin(), b -> new int[3]);
            u[0] += j.getVcpu();
            u[1] += j.getMemoryMb();
            u[2] += j.getDiskGb();
        }
        boolean fits = used.entrySet().stream().allMatch(e -> e.getValue()[0] <= e.getKey().getVcpu()
                && e.getValue()[1] <= e.getKey().getMemoryMb() && e.getValue()[2] <= e.getKey().getDiskGb());
        return new Result(snapshot, used.size(), assigned && fits, seconds, startInstances, startSeconds,
                description);
    }
}
