package dev.gantry.sim;

import dev.gantry.scheduler.fleet.Cluster;
import dev.gantry.scheduler.fleet.RankedType;
import dev.gantry.scheduler.fleet.SimulatedProvider.Machine;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Collects what a run measures: waits per workload (whole run and per window), the vCPU-seconds jobs ran, and the
 * fleet paid for over time (integrated exactly: the fleet only changes at policy ticks). Not thread-safe.
 */
final class Metrics {
    private final Scenario scenario;
    private final Instant start;
    private final List<long[]> waits = new ArrayList<>();       // millis, per workload, grown as needed
    private final int[] waitCounts;
    private final long[] done;
    private final long[] started;
    private final long[] stillWaiting;
    private final double[] vcpuSeconds;
    private final List<List<Long>> windowWaits = new ArrayList<>();
    private final Map<String, RankedType> types = new LinkedHashMap<>();
    private final Map<String, Double> instanceSeconds = new LinkedHashMap<>();
    private final List<Result.Sample> samples = new ArrayList<>();
    private final List<Result.FleetSample> fleetSamples = new ArrayList<>();
    private Instant fleetSince;
    private Map<String, Integer> fleetNow = new LinkedHashMap<>();

    Metrics(Scenario scenario, Instant start) {
        this.scenario = scenario;
        this.start = start;
        this.fleetSince = start;
        int n = scenario.workloads().size();
        waitCounts = new int[n];
        done = new long[n];
        started = new long[n];
        stillWaiting = new long[n];
        vcpuSeconds = new double[n];
        for (int i = 0; i < n; i++) {
            waits.add(new long[64]);
            windowWaits.add(new ArrayList<>());
        }
        for (Cluster c : scenario.fleet().clusters()) {
            c.types().forEach(t -> {
                types.putIfAbsent(t.name(), t);
                instanceSeconds.putIfAbsent(t.name(), 0.0);
            });
        }
    }

    void started(int workload, Instant enqueuedAt, Instant at) {
        long wait = Duration.between(enqueuedAt, at).toMillis();
        if (counted(enqueuedAt)) {
            addWait(workload, wait);
            started[workload]++;
        }
        windowWaits.get(workload).add(wait);
    }

    void stillWaiting(int workload, Instant enqueuedAt, Instant end) {
        if (counted(enqueuedAt)) {
            addWait(workload, Duration.between(enqueuedAt, end).toMillis());
            stillWaiting[workload]++;
        }
    }

    /** Whether a job enqueued then is in the summary: not during the warm-up. */
    private boolean counted(Instant enqueuedAt) {
        return !enqueuedAt.isBefore(start.plus(scenario.warmUp()));
    }

    void ran(int workload, Instant from, Instant to) {
        vcpuSeconds[workload] += Duration.between(from, to).toMillis() / 1000.0
                * scenario.workloads().get(workload).resourceClass().vcpu();
    }

    void done(int workload, Instant enqueuedAt) {
        if (counted(enqueuedAt)) {
            done[workload]++;
        }
    }

    /** The fleet is {@code machines} from {@code now} on. */
    void fleetChanged(Instant now, List<Machine> machines) {
        double seconds = Duration.between(fleetSince, now).toMillis() / 1000.0;
        fleetNow.forEach((type, count) -> instanceSeconds.merge(type, seconds * count, Double::sum));
        fleetSince = now;
        fleetNow = countByType(machines);
    }

    void sample(Instant now, int[] pendingPerWorkload, List<Machine> machines) {
        long t = Duration.between(start, now).toSeconds();
        for (int w = 0; w < scenario.workloads().size(); w++) {
            long[] window = windowWaits.get(w).stream().mapToLong(Long::longValue).sorted().toArray();
            samples.add(new Result.Sample(t, scenario.workloads().get(w).name(), pendingPerWorkload[w],
                    window.length, percentile(window, 50), percentile(window, 95),
                    window.length == 0 ? 0 : window[window.length - 1] / 1000.0));
            windowWaits.get(w).clear();
        }
        Map<String, Integer> counts = countByType(machines);
        types.keySet().forEach(type -> fleetSamples.add(new Result.FleetSample(t, type,
                counts.getOrDefault(type, 0))));
    }

    Result result(String policy, long seed, List<String> events, Optional<Result.FaultSummary> faults,
                  Optional<Result.PoolSummary> pool) {
        double runSeconds = scenario.runFor().toMillis() / 1000.0;
        double cost = 0;
        double fleetVcpuSeconds = 0;
        double instanceTotal = 0;
        for (var e : instanceSeconds.entrySet()) {
            RankedType t = types.get(e.getKey());
            cost += e.getValue() / 3600 * t.costPerHour();
            fleetVcpuSeconds += e.getValue() * t.type().capacity().vcpu();
            instanceTotal += e.getValue();
        }
        double instancesAvg = instanceTotal / runSeconds;
        double jobVcpuSeconds = Arrays.stream(vcpuSeconds).sum();
        Map<String, Double> workPerPool = new LinkedHashMap<>();
        for (int w = 0; w < scenario.workloads().size(); w++) {
            workPerPool.merge(scenario.workloads().get(w).pool(), vcpuSeconds[w], Double::sum);
        }
        double lowerBound = 0;
        for (var e : workPerPool.entrySet()) {
            int largest = scenario.fleet().clustersOf(e.getKey()).stream().flatMap(c -> c.types().stream())
                    .mapToInt(t -> t.type().capacity().vcpu()).max().orElse(1);
            lowerBound += e.getValue() / (runSeconds * largest);
        }
        List<Result.WorkloadSummary> summaries = new ArrayList<>();
        for (int w = 0; w < scenario.workloads().size(); w++) {
            long[] all = Arrays.copyOf(waits.get(w), waitCounts[w]);
            Arrays.sort(all);
            double share = jobVcpuSeconds == 0 ? 0 : vcpuSeconds[w] / jobVcpuSeconds;
            Scenario.Workload workload = scenario.workloads().get(w);
            summaries.add(new Result.WorkloadSummary(workload.name(), workload.resourceClass().name(),
                    percentile(all, 50), percentile(all, 95), percentile(all, 99),
                    all.length == 0 ? 0 : all[all.length - 1] / 1000.0, done[w], started[w], stillWaiting[w],
                    instancesAvg * share, cost * share));
        }
        Result.Totals totals = new Result.Totals(instancesAvg, cost,
                fleetVcpuSeconds == 0 ? 0 : jobVcpuSeconds / fleetVcpuSeconds, lowerBound);
        return new Result(scenario.name(), policy, seed, scenario.runFor().toSeconds(), summaries, totals, samples,
                fleetSamples, events, faults, pool);
    }

    /** Nearest-rank percentile of sorted millis, in seconds; 0 for no values. */
    static double percentile(long[] sorted, int p) {
        if (sorted.length == 0) {
            return 0;
        }
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, rank - 1)] / 1000.0;
    }

    private void addWait(int workload, long millis) {
        long[] a = waits.get(workload);
        if (waitCounts[workload] == a.length) {
            a = Arrays.copyOf(a, a.length * 2);
            waits.set(workload, a);
        }
        a[waitCounts[workload]++] = millis;
    }

    private static Map<String, Integer> countByType(List<Machine> machines) {
        Map<String, Integer> counts = new LinkedHashMap<>();
        machines.forEach(m -> counts.merge(m.type().name(), 1, Integer::sum));
        return counts;
    }
}
