package dev.gantry.sim;

import dev.gantry.scheduler.Instance;
import dev.gantry.scheduler.PendingJob;
import dev.gantry.scheduler.Snapshot;
import dev.gantry.scheduler.fleet.Cluster;
import dev.gantry.scheduler.fleet.FleetConfig;
import dev.gantry.scheduler.fleet.FleetProvider;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The naive autoscaler Gantry is compared with: per pool it wants one instance for every {@code jobsPerInstance}
 * jobs running or pending, whatever their size, within the clusters' min and max; it only ever launches each
 * cluster's first-ranked type, so when the provider is short of it the launch fails and is asked again next round
 * (no fallback, no rest). Idle instances past the cool-down are terminated while the pool has more than it wants.
 * Not thread-safe: one simulation drives it.
 */
final class JobCountAutoscaler {
    private record Launched(String id, Cluster cluster, Instant at) {
    }

    private final FleetConfig fleet;
    private final FleetProvider provider;
    private final int jobsPerInstance;
    private final Map<String, Launched> ours = new LinkedHashMap<>();
    private final Map<String, Instant> idleSince = new HashMap<>();
    private long nextId = 1;

    JobCountAutoscaler(FleetConfig fleet, FleetProvider provider, int jobsPerInstance) {
        this.fleet = fleet;
        this.provider = provider;
        this.jobsPerInstance = jobsPerInstance;
    }

    List<String> tick(Snapshot observed) {
        Instant now = observed.now();
        List<String> events = new ArrayList<>();
        Map<String, Instance> ready = new LinkedHashMap<>();
        observed.instances().forEach(i -> ready.put(i.id(), i));
        for (Instance i : ready.values()) {
            if (i.running().isEmpty()) {
                idleSince.putIfAbsent(i.id(), now);
            } else {
                idleSince.remove(i.id());
            }
        }
        List<String> pools = fleet.clusters().stream().map(Cluster::pool).distinct().toList();
        for (String pool : pools) {
            List<Cluster> clusters = fleet.clustersOf(pool);
            long jobs = observed.pending().stream().map(PendingJob::pool).filter(pool::equals).count()
                    + ready.values().stream().filter(i -> i.pool().equals(pool)).mapToLong(i -> i.running().size())
                    .sum();
            int min = clusters.stream().mapToInt(Cluster::min).sum();
            int max = clusters.stream().mapToInt(Cluster::max).sum();
            int wanted = (int) Math.max(min, Math.min(max, (jobs + jobsPerInstance - 1) / jobsPerInstance));
            int current = (int) ours.values().stream().filter(l -> l.cluster().pool().equals(pool)).count();
            if (wanted > current) {
                scaleOut(clusters, wanted - current, now, events);
            } else if (wanted < current) {
                scaleIn(pool, current - wanted, ready, now, events);
            }
        }
        return events;
    }

    private void scaleOut(List<Cluster> clusters, int count, Instant now, List<String> events) {
        Set<String> short_ = new HashSet<>();
        for (int n = 0; n < count; n++) {
            Cluster target = clusters.stream()
                    .filter(c -> !short_.contains(c.name()) && size(c) < c.max())
                    .min(Comparator.comparingLong(this::size)) // stable: ties keep configuration order
                    .orElse(null);
            if (target == null) {
                return;
            }
            var type = target.types().getFirst(); // one instance type, no fallback
            String id = target.name() + "-b" + nextId++;
            switch (provider.launch(target.name(), type.type(), id)) {
                case FleetProvider.LaunchResult.Launched l -> {
                    ours.put(id, new Launched(id, target, now));
                    events.add("LAUNCHED " + target.name() + " " + type.name() + " " + id);
                }
                case FleetProvider.LaunchResult.InsufficientCapacity s -> {
                    short_.add(target.name());
                    events.add("INSUFFICIENT_CAPACITY " + target.name() + " " + type.name() + ": " + s.detail());
                }
                case FleetProvider.LaunchResult.Failed f -> {
                    short_.add(target.name());
                    events.add("LAUNCH_FAILED " + target.name() + " " + type.name() + ": " + f.reason());
                }
            }
        }
    }

    private void scaleIn(String pool, int excess, Map<String, Instance> ready, Instant now, List<String> events) {
        List<Launched> idle = ours.values().stream()
                .filter(l -> l.cluster().pool().equals(pool))
                .filter(l -> ready.containsKey(l.id()) && ready.get(l.id()).running().isEmpty())
                .filter(l -> !idleSince.get(l.id()).plus(fleet.scaleInAfter()).isAfter(now))
                .sorted(Comparator.comparing((Launched l) -> idleSince.get(l.id())).thenComparing(Launched::id))
                .toList();
        for (Launched l : idle) {
            if (excess == 0) {
                return;
            }
            if (size(l.cluster()) > l.cluster().min()) {
                provider.terminate(l.id());
                ours.remove(l.id());
                idleSince.remove(l.id());
                excess--;
                events.add("TERMINATED " + l.cluster().name() + " " + l.id() + ": idle past the cool-down");
            }
        }
    }

    private long size(Cluster c) {
        return ours.values().stream().filter(l -> l.cluster() == c).count();
    }
}
