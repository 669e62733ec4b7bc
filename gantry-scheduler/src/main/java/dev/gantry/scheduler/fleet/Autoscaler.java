package dev.gantry.scheduler.fleet;

import dev.gantry.scheduler.Assignment;
import dev.gantry.scheduler.Decision;
import dev.gantry.scheduler.Instance;
import dev.gantry.scheduler.InstanceState;
import dev.gantry.scheduler.PendingJob;
import dev.gantry.scheduler.Placement;
import dev.gantry.scheduler.Reservation;
import dev.gantry.scheduler.Snapshot;
import dev.gantry.scheduler.WaitReason;
import dev.gantry.scheduler.Waiting;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Decides how the fleet should change: a pure function of the snapshot (with the fleet's own instances in it,
 * provisioning ones included), the configuration, what the autoscaler launched ({@link Member}s) and which types are
 * short. No I/O, no clock, no randomness; the same input gives the same {@link Plan}.
 *
 * <p>The rules (docs/scheduler.md has the reasoning):
 * <ol>
 *   <li>A draining instance that runs nothing is terminated, and so is one still provisioning past the provision
 *       timeout (it counts for nothing from then on, so it is replaced at once if needed); a member that came up and
 *       is missing now is not: the controller's silence deadline decides about it.</li>
 *   <li>Every cluster keeps {@code min} instances up or starting, of its best available type.</li>
 *   <li>Demand is what {@link Placement} leaves waiting for capacity once provisioning instances count as up. The
 *       oldest such job gets a hypothetical new instance in the least-loaded cluster of its pool that is under its
 *       max, of the highest-ranked type that is available and holds it; then placement runs again on the snapshot
 *       with that instance, so the same rules decide what else it takes. Types that are short are skipped (one
 *       instance may re-probe a type whose rest is over); a job no cluster can serve is reported, not retried.</li>
 *   <li>An instance idle for the cool-down that the packing does not use is drained, never below {@code min};
 *       a cluster over {@code max} (after a config change) drains its least busy instances. Running jobs are never
 *       cut: draining only stops new ones, and rule 1 terminates the instance once they are done.</li>
 * </ol>
 * Thread-safe: it holds no state.
 */
public final class Autoscaler {
    /** Prefix of the hypothetical instances a plan packs onto; never the id of a real instance. */
    static final String PLANNED = "planned:";
    /**
     * How many new instances one waiting job may call for. Best fit can move older jobs onto the instance added for a
     * younger one (a small job fits tighter there), so a job may still wait after its instance is added; a few more
     * tries place it in the same plan instead of a round later, and the bound keeps the loop finite.
     */
    static final int MAX_INSTANCES_PER_JOB = 3;
    private static final Set<WaitReason> NEEDS_CAPACITY = EnumSet.of(WaitReason.NO_CAPACITY,
            WaitReason.NO_INSTANCE_LARGE_ENOUGH, WaitReason.RESERVED_FOR_OLDER_JOB);

    private Autoscaler() {
    }

    /** The plan for {@code snapshot}; members not in the snapshot are ignored. */
    public static Plan plan(Snapshot snapshot, FleetConfig config, Collection<Member> members,
                            TypeAvailability availability) {
        return new Round(snapshot, config, members, availability).run();
    }

    private enum Why { MINIMUM, DEMAND }

    /** A hypothetical instance this plan adds: where, of what type, why, and which types it skipped. */
    private record Planned(Instance instance, Cluster cluster, RankedType type, Why why, List<String> skipped) {
    }

    private record Choice(RankedType type, List<String> skipped) {
    }

    private static final class Round {
        private final Snapshot snapshot;
        private final FleetConfig config;
        private final TypeAvailability availability;
        private final Instant now;
        private final Map<String, PendingJob> pendingById = new HashMap<>();
        private final Map<String, Member> members = new LinkedHashMap<>();
        private final Map<String, Instance> ours = new LinkedHashMap<>();
        private final Map<String, Integer> size = new HashMap<>();
        private final List<Planned> planned = new ArrayList<>();
        private final List<Plan.ScaleIn> scaleIns = new ArrayList<>();
        private final List<Plan.Unserved> unserved = new ArrayList<>();
        private final Set<String> givenUp = new HashSet<>();

        Round(Snapshot snapshot, FleetConfig config, Collection<Member> members, TypeAvailability availability) {
            this.snapshot = snapshot;
            this.config = config;
            this.availability = availability;
            this.now = snapshot.now();
            snapshot.pending().forEach(j -> pendingById.put(j.id(), j));
            Map<String, Instance> byId = snapshot.instances().stream()
                    .collect(Collectors.toMap(Instance::id, Function.identity()));
            members.stream().sorted(Comparator.comparing(Member::instanceId)).forEach(m -> {
                Instance i = byId.get(m.instanceId());
                if (i != null && config.cluster(m.cluster()).isPresent()) {
                    this.members.put(m.instanceId(), m);
                    ours.put(m.instanceId(), i);
                    if (i.state() == InstanceState.PROVISIONING && !m.missing()
                            && !m.launchedAt().plus(config.provisionTimeout()).isAfter(now)) {
                        givenUp.add(i.id());
                    } else if (i.state() != InstanceState.DRAINING) {
                        size.merge(m.cluster(), 1, Integer::sum);
                    }
                }
            });
        }

        Plan run() {
            terminateDrained();
            keepMinimum();
            packDemand();
            Decision packed = Placement.place(hypothetical());
            scaleIn(packed);
            return new Plan(launches(packed), scaleIns, unserved);
        }

        private void terminateDrained() {
            ours.values().stream()
                    .filter(i -> i.state() == InstanceState.DRAINING && i.running().isEmpty())
                    .forEach(i -> scaleIns.add(new Plan.ScaleIn(i.id(), Plan.ScaleIn.Action.TERMINATE,
                            "drained: it runs no job any more")));
            givenUp.forEach(id -> scaleIns.add(new Plan.ScaleIn(id, Plan.ScaleIn.Action.TERMINATE,
                    "not up " + config.provisionTimeout() + " after its launch at " + members.get(id).launchedAt())));
        }

        private void keepMinimum() {
            for (Cluster c : config.clusters()) {
                while (size(c) < c.min()) {
                    Optional<Choice> choice = bestType(c, null);
                    if (choice.isEmpty()) {
                        break; // every type is short; the next plan tries again once one's rest is over
                    }
                    add(c, choice.get(), Why.MINIMUM);
                }
            }
        }

        private void packDemand() {
            Map<String, Integer> tries = new HashMap<>();
            while (true) {
                Decision d = Placement.place(hypothetical());
                Optional<PendingJob> next = d.waiting().stream()
                        .filter(w -> NEEDS_CAPACITY.contains(w.reason()))
                        .filter(w -> tries.getOrDefault(w.jobId(), 0) < MAX_INSTANCES_PER_JOB)
                        .map(Waiting::jobId).findFirst().map(this::pending);
                if (next.isEmpty()) {
                    return;
                }
                PendingJob job = next.get();
                tries.merge(job.id(), 1, Integer::sum);
                List<String> why = new ArrayList<>();
                List<Cluster> clusters = new ArrayList<>(config.clustersOf(job.pool()));
                clusters.sort(Comparator.comparingInt(this::size)); // stable: ties keep configuration order
                boolean added = false;
                for (Cluster c : clusters) {
                    if (size(c) >= c.max()) {
                        why.add("cluster " + c.name() + " is at its max of " + c.max());
                        continue;
                    }
                    Optional<Choice> choice = bestType(c, job);
                    if (choice.isPresent()) {
                        add(c, choice.get(), Why.DEMAND);
                        added = true;
                        break;
                    }
                    why.add(noTypeFor(c, job));
                }
                if (!added) {
                    tries.put(job.id(), MAX_INSTANCES_PER_JOB); // nothing will change for it in this plan
                    unserved.add(new Plan.Unserved(job.id(), clusters.isEmpty()
                            ? "no cluster serves pool " + job.pool()
                            : "class " + job.resourceClass().name() + " (" + job.demand() + ") needs a new instance: "
                                    + String.join("; ", why)));
                }
            }
        }

        private void scaleIn(Decision packed) {
            Set<String> used = new HashSet<>();
            packed.assignments().stream().map(Assignment::instanceId).forEach(used::add);
            packed.reservations().stream().map(Reservation::instanceId).forEach(used::add);
            for (Cluster c : config.clusters()) {
                List<Instance> live = ours.values().stream()
                        .filter(i -> members.get(i.id()).cluster().equals(c.name()))
                        .filter(i -> i.state() != InstanceState.DRAINING && !givenUp.contains(i.id()))
                        .toList();
                int excess = live.size() - c.max();
                if (excess > 0) {
                    live.stream().filter(i -> i.state() == InstanceState.READY)
                            .sorted(Comparator.comparingInt((Instance i) -> i.running().size())
                                    .thenComparing(Instance::id))
                            .limit(excess)
                            .forEach(i -> drain(i, "cluster " + c.name() + " runs " + live.size()
                                    + " instances, over its max of " + c.max()));
                }
                int removable = Math.max(0, live.size() - Math.max(excess, 0) - c.min());
                live.stream()
                        .filter(i -> i.state() == InstanceState.READY && i.running().isEmpty() && !used.contains(i.id()))
                        .filter(i -> !draining(i.id()))
                        .filter(i -> idleSince(i).filter(t -> !t.plus(config.scaleInAfter()).isAfter(now)).isPresent())
                        .sorted(Comparator.comparing((Instance i) -> idleSince(i).orElseThrow())
                                .thenComparing(Instance::id))
                        .limit(removable)
                        .forEach(i -> drain(i, "idle since " + idleSince(i).orElseThrow() + ", past the cool-down of "
                                + config.scaleInAfter() + "; cluster " + c.name() + " keeps at least " + c.min()));
            }
        }

        private List<Plan.Launch> launches(Decision packed) {
            Map<String, List<PendingJob>> jobsOn = new HashMap<>();
            for (Assignment a : packed.assignments()) {
                jobsOn.computeIfAbsent(a.instanceId(), k -> new ArrayList<>()).add(pending(a.jobId()));
            }
            record Key(String cluster, String type, Why why) {
            }
            Map<Key, List<Planned>> grouped = new LinkedHashMap<>();
            for (Planned p : planned) {
                grouped.computeIfAbsent(new Key(p.cluster().name(), p.type().name(), p.why()), k -> new ArrayList<>())
                        .add(p);
            }
            List<Plan.Launch> out = new ArrayList<>();
            grouped.forEach((key, ps) -> {
                Set<String> skipped = new LinkedHashSet<>();
                ps.forEach(p -> skipped.addAll(p.skipped()));
                String reason;
                if (key.why() == Why.MINIMUM) {
                    Cluster c = ps.getFirst().cluster();
                    reason = "keep the minimum of " + c.min() + " warm in cluster " + c.name();
                } else {
                    List<PendingJob> jobs = ps.stream()
                            .flatMap(p -> jobsOn.getOrDefault(p.instance().id(), List.of()).stream())
                            .sorted(Comparator.comparing(PendingJob::enqueuedAt).thenComparing(PendingJob::id))
                            .toList();
                    reason = jobs.size() + " pending job" + (jobs.size() == 1 ? "" : "s") + " in pool "
                            + ps.getFirst().cluster().pool() + " fit on no instance up or provisioning"
                            + (jobs.isEmpty() ? "" : " (oldest " + jobs.getFirst().id() + ", class "
                                    + jobs.getFirst().resourceClass().name() + ")");
                }
                if (!skipped.isEmpty()) {
                    reason += "; fell back: " + String.join("; ", skipped);
                }
                out.add(new Plan.Launch(key.cluster(), key.type(), ps.size(), reason));
            });
            return out;
        }

        /** The highest-ranked type of {@code c} that may be launched now and holds {@code job} (any type if null). */
        private Optional<Choice> bestType(Cluster c, PendingJob job) {
            List<String> skipped = new ArrayList<>();
            for (RankedType t : c.types()) {
                if (job != null && !t.type().capacity().fits(job.demand())) {
                    continue;
                }
                switch (availability.state(c.name(), t.name(), now)) {
                    case AVAILABLE -> {
                        return Optional.of(new Choice(t, skipped));
                    }
                    case PROBE -> {
                        if (plannedOf(c, t) == 0) {
                            return Optional.of(new Choice(t, skipped));
                        }
                        skipped.add(t.name() + " in " + c.name() + " is being re-probed with one instance");
                    }
                    case UNAVAILABLE -> skipped.add(t.name() + " in " + c.name() + " is short until "
                            + availability.unavailableUntil(c.name(), t.name()).orElseThrow());
                }
            }
            return Optional.empty();
        }

        private String noTypeFor(Cluster c, PendingJob job) {
            List<String> big = c.types().stream().filter(t -> t.type().capacity().fits(job.demand()))
                    .map(RankedType::name).toList();
            return big.isEmpty()
                    ? "no type of cluster " + c.name() + " is big enough"
                    : "every type of cluster " + c.name() + " big enough (" + String.join(", ", big)
                            + ") is short for now";
        }

        private void add(Cluster c, Choice choice, Why why) {
            Instance instance = new Instance(PLANNED + c.name() + "#" + (planned.size() + 1), choice.type().type(),
                    c.pool(), InstanceState.READY, List.of(), Optional.empty());
            planned.add(new Planned(instance, c, choice.type(), why, choice.skipped()));
            size.merge(c.name(), 1, Integer::sum);
        }

        private void drain(Instance i, String reason) {
            scaleIns.add(new Plan.ScaleIn(i.id(), Plan.ScaleIn.Action.DRAIN, reason));
        }

        private boolean draining(String id) {
            return scaleIns.stream().anyMatch(s -> s.instanceId().equals(id));
        }

        /** The snapshot as it would be with provisioning instances up and the planned ones added, all empty. */
        private Snapshot hypothetical() {
            List<Instance> instances = new ArrayList<>();
            for (Instance i : snapshot.instances()) {
                if (givenUp.contains(i.id())) {
                    continue;
                }
                instances.add(i.state() == InstanceState.PROVISIONING
                        ? new Instance(i.id(), i.type(), i.pool(), InstanceState.READY, i.running(), Optional.empty())
                        : i);
            }
            planned.forEach(p -> instances.add(p.instance()));
            return new Snapshot(snapshot.pending(), instances, snapshot.limits(), now);
        }

        private int size(Cluster c) {
            return size.getOrDefault(c.name(), 0);
        }

        private long plannedOf(Cluster c, RankedType t) {
            return planned.stream().filter(p -> p.cluster() == c && p.type() == t).count();
        }

        private Optional<Instant> idleSince(Instance i) {
            return members.get(i.id()).idleSince();
        }

        private PendingJob pending(String jobId) {
            return pendingById.get(jobId);
        }
    }
}
