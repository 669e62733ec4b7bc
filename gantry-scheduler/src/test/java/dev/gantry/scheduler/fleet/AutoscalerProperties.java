package dev.gantry.scheduler.fleet;

import static dev.gantry.scheduler.fleet.Fleets.at;
import static org.assertj.core.api.Assertions.assertThat;

import dev.gantry.scheduler.Decision;
import dev.gantry.scheduler.Instance;
import dev.gantry.scheduler.InstanceState;
import dev.gantry.scheduler.OrgLimits;
import dev.gantry.scheduler.PendingJob;
import dev.gantry.scheduler.Placement;
import dev.gantry.scheduler.ResourceClass;
import dev.gantry.scheduler.Resources;
import dev.gantry.scheduler.RunningJob;
import dev.gantry.scheduler.Snapshot;
import dev.gantry.scheduler.WaitReason;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.Collectors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The autoscaler over random fleets: clusters of one or two pools with ranked types (some short), members in every
 * state with running jobs and idle times, and pending jobs of every class.
 */
class AutoscalerProperties {
    private static final List<RankedType> TYPES = List.of(Fleets.type("t4", 4), Fleets.T8, Fleets.T16,
            new RankedType(new dev.gantry.scheduler.InstanceType("mem", new Resources(4, 65536, 100)), 0.3));
    private static final List<ResourceClass> CLASSES = Fleets.CLASSES.all();
    private static final List<String> POOLS = List.of(Instance.DEFAULT_POOL, "macos");
    private static final Instant NOW = at(30);

    /** One random input. */
    record Case(Snapshot snapshot, FleetConfig config, List<Member> members, TypeAvailability availability) {
        Plan plan() {
            return Autoscaler.plan(snapshot, config, members, availability);
        }

        /** Instances of the cluster up or starting, less those past the provision timeout (they are given up). */
        long live(String cluster) {
            Map<String, Member> ours = members.stream().filter(m -> m.cluster().equals(cluster))
                    .collect(Collectors.toMap(Member::instanceId, m -> m));
            return snapshot.instances().stream()
                    .filter(i -> ours.containsKey(i.id()) && i.state() != InstanceState.DRAINING)
                    .filter(i -> i.state() != InstanceState.PROVISIONING
                            || ours.get(i.id()).launchedAt().plus(config.provisionTimeout()).isAfter(NOW))
                    .count();
        }
    }

    record ClusterSpec(int pool, List<Integer> types, int min, int extra) {
    }

    record InstanceSpec(int cluster, InstanceState state, List<Integer> classes, int idleMinutes) {
    }

    @Provide
    Arbitrary<Case> cases() {
        return cases(Arbitraries.integers().between(0, 4));
    }

    /** Clusters large enough for any demand, every type available: packing is the only question. */
    @Provide
    Arbitrary<Case> roomyCases() {
        return cases(Arbitraries.just(60)).map(c -> new Case(c.snapshot(), c.config(), c.members(),
                TypeAvailability.NONE));
    }

    private Arbitrary<Case> cases(Arbitrary<Integer> extra) {
        Arbitrary<ClusterSpec> cluster = Combinators.combine(
                Arbitraries.integers().between(0, POOLS.size() - 1),
                Arbitraries.integers().between(0, TYPES.size() - 1).list().ofMinSize(1).ofMaxSize(3).uniqueElements(),
                Arbitraries.integers().between(0, 2), extra).as(ClusterSpec::new);
        Arbitrary<InstanceSpec> instance = Combinators.combine(
                Arbitraries.integers().between(0, 3),
                Arbitraries.of(InstanceState.class),
                Arbitraries.integers().between(0, CLASSES.size() - 1).list().ofMaxSize(4),
                Arbitraries.integers().between(-1, 20)).as(InstanceSpec::new);
        Arbitrary<List<Integer>> jobs = Arbitraries.integers().between(0, CLASSES.size() * POOLS.size() - 1)
                .list().ofMaxSize(25);
        Arbitrary<List<Integer>> shortages = Arbitraries.integers().between(0, 20).list().ofMaxSize(4);
        return Combinators.combine(cluster.list().ofMinSize(1).ofMaxSize(3), instance.list().ofMaxSize(8), jobs,
                shortages).as(AutoscalerProperties::build);
    }

    private static Case build(List<ClusterSpec> clusterSpecs, List<InstanceSpec> instanceSpecs, List<Integer> jobs,
                              List<Integer> shortages) {
        List<Cluster> clusters = new ArrayList<>();
        for (int c = 0; c < clusterSpecs.size(); c++) {
            ClusterSpec s = clusterSpecs.get(c);
            clusters.add(new Cluster("c" + c, POOLS.get(s.pool()), s.types().stream().map(TYPES::get).toList(),
                    s.min(), Math.max(1, s.min() + s.extra())));
        }
        FleetConfig config = new FleetConfig(clusters, Map.of(), Duration.ofMinutes(5), Duration.ofMinutes(3),
                Duration.ofMinutes(10));
        List<Instance> instances = new ArrayList<>();
        List<Member> members = new ArrayList<>();
        for (int k = 0; k < instanceSpecs.size(); k++) {
            InstanceSpec s = instanceSpecs.get(k);
            Cluster c = clusters.get(s.cluster() % clusters.size());
            RankedType type = c.types().get(k % c.types().size());
            List<RunningJob> running = new ArrayList<>();
            Resources free = type.type().capacity();
            for (int r = 0; r < s.classes().size() && s.state() != InstanceState.PROVISIONING; r++) {
                ResourceClass rc = CLASSES.get(s.classes().get(r));
                if (free.fits(rc.demand())) {
                    running.add(new RunningJob("i" + k + "-r" + r, rc.demand(), "org", Optional.empty()));
                    free = free.minus(rc.demand());
                }
            }
            String id = c.name() + "-" + k;
            instances.add(new Instance(id, type.type(), c.pool(), s.state(), running,
                    s.state() == InstanceState.PROVISIONING ? Optional.of(at(32)) : Optional.empty()));
            boolean idle = s.state() == InstanceState.READY && running.isEmpty() && s.idleMinutes() >= 0;
            // Launched 5 or 15 minutes ago: some provisioning ones are past the 10-minute timeout.
            members.add(new Member(id, c.name(), NOW.minus(Duration.ofMinutes(k % 2 == 0 ? 5 : 15)), idle ? Optional.of(NOW.minus(Duration.ofMinutes(s.idleMinutes())))
                    : Optional.empty()));
        }
        List<PendingJob> pending = new ArrayList<>();
        for (int j = 0; j < jobs.size(); j++) {
            int v = jobs.get(j);
            pending.add(new PendingJob("j" + j, CLASSES.get(v % CLASSES.size()), "org", at(j))
                    .inPool(POOLS.get(v / CLASSES.size())));
        }
        TypeAvailability availability = TypeAvailability.NONE;
        SplittableRandom random = new SplittableRandom(7);
        for (int s : shortages) {
            Cluster c = clusters.get(s % clusters.size());
            RankedType t = c.types().get(s % c.types().size());
            // Half the shortages began long enough ago to be probed again, half are still resting.
            Instant since = s % 2 == 0 ? NOW.minus(Duration.ofMinutes(1)) : NOW.minus(Duration.ofMinutes(10));
            availability = availability.unavailable(c.name(), t.name(), since, config.unavailableFor(), random);
        }
        return new Case(new Snapshot(pending, instances, OrgLimits.NONE, NOW), config, members, availability);
    }

    @Property(tries = 300)
    void a_cluster_never_grows_past_its_max(@ForAll("cases") Case c) {
        Plan plan = c.plan();
        for (Cluster cluster : c.config().clusters()) {
            int launched = plan.launches().stream().filter(l -> l.cluster().equals(cluster.name()))
                    .mapToInt(Plan.Launch::count).sum();
            assertThat(launched == 0 || c.live(cluster.name()) + launched <= cluster.max())
                    .as("cluster %s: %s live, %s launched, max %s", cluster.name(), c.live(cluster.name()), launched,
                            cluster.max())
                    .isTrue();
        }
    }

    @Property(tries = 300)
    void scale_in_never_takes_a_cluster_below_its_min(@ForAll("cases") Case c) {
        Plan plan = c.plan();
        for (Cluster cluster : c.config().clusters()) {
            long drained = plan.scaleIns().stream()
                    .filter(s -> s.action() == Plan.ScaleIn.Action.DRAIN)
                    .filter(s -> c.members().stream().anyMatch(m -> m.instanceId().equals(s.instanceId())
                            && m.cluster().equals(cluster.name())))
                    .count();
            long live = c.live(cluster.name());
            assertThat(drained == 0 || live - drained >= Math.min(cluster.min(), cluster.max()))
                    .as("cluster %s: %s live, %s drained, min %s", cluster.name(), live, drained, cluster.min())
                    .isTrue();
        }
    }

    @Property(tries = 300)
    void the_minimum_is_kept_warm_whenever_some_type_is_available(@ForAll("cases") Case c) {
        Plan plan = c.plan();
        for (Cluster cluster : c.config().clusters()) {
            // A type being re-probed gives one instance only, so it alone may not reach the minimum.
            boolean someType = cluster.types().stream().anyMatch(t -> c.availability()
                    .state(cluster.name(), t.name(), NOW) == TypeAvailability.State.AVAILABLE);
            int launched = plan.launches().stream().filter(l -> l.cluster().equals(cluster.name()))
                    .mapToInt(Plan.Launch::count).sum();
            if (someType) {
                assertThat(c.live(cluster.name()) + launched).isGreaterThanOrEqualTo(cluster.min());
            }
        }
    }

    @Property(tries = 300)
    void no_type_is_launched_while_it_is_short_and_a_re_probe_is_one_instance(@ForAll("cases") Case c) {
        Map<String, Integer> perType = new HashMap<>();
        for (Plan.Launch l : c.plan().launches()) {
            perType.merge(l.cluster() + "/" + l.type(), l.count(), Integer::sum);
            TypeAvailability.State state = c.availability().state(l.cluster(), l.type(), NOW);
            assertThat(state).isNotEqualTo(TypeAvailability.State.UNAVAILABLE);
        }
        perType.forEach((key, count) -> {
            String[] ct = key.split("/");
            if (c.availability().state(ct[0], ct[1], NOW) == TypeAvailability.State.PROBE) {
                assertThat(count).as(key).isEqualTo(1);
            }
        });
    }

    @Property(tries = 300)
    void scale_in_terminates_only_drained_instances_that_run_nothing_or_ones_that_never_came_up(@ForAll("cases") Case c) {
        Map<String, Instance> byId = c.snapshot().instances().stream()
                .collect(Collectors.toMap(Instance::id, i -> i));
        for (Plan.ScaleIn s : c.plan().scaleIns()) {
            Instance i = byId.get(s.instanceId());
            assertThat(c.members()).anyMatch(m -> m.instanceId().equals(s.instanceId()));
            if (s.action() == Plan.ScaleIn.Action.TERMINATE) {
                assertThat(i.state()).isIn(InstanceState.DRAINING, InstanceState.PROVISIONING);
                assertThat(i.running()).isEmpty();
            } else {
                assertThat(i.state()).isNotEqualTo(InstanceState.DRAINING);
            }
        }
    }

    @Property(tries = 1000)
    void with_room_to_grow_the_plan_packs_every_job_some_type_of_its_pool_could_hold(@ForAll("roomyCases") Case c) {
        Plan plan = c.plan();
        // The fleet once the plan is carried out: what it terminates is gone, what it drains takes no new job.
        Map<String, Plan.ScaleIn.Action> scaledIn = plan.scaleIns().stream()
                .collect(Collectors.toMap(Plan.ScaleIn::instanceId, Plan.ScaleIn::action));
        List<Instance> after = new ArrayList<>();
        for (Instance i : c.snapshot().instances()) {
            Plan.ScaleIn.Action action = scaledIn.get(i.id());
            if (action == Plan.ScaleIn.Action.TERMINATE) {
                continue;
            }
            if (action == Plan.ScaleIn.Action.DRAIN) {
                after.add(new Instance(i.id(), i.type(), i.pool(), InstanceState.DRAINING, i.running(), i.readyAt()));
            } else if (i.state() == InstanceState.PROVISIONING) {
                after.add(new Instance(i.id(), i.type(), i.pool(), InstanceState.READY, i.running(), Optional.empty()));
            } else {
                after.add(i);
            }
        }
        int n = 0;
        for (Plan.Launch l : plan.launches()) {
            Cluster cluster = c.config().cluster(l.cluster()).orElseThrow();
            for (int k = 0; k < l.count(); k++) {
                after.add(new Instance("new-" + n++, cluster.type(l.type()).orElseThrow().type(), cluster.pool(),
                        InstanceState.READY, List.of(), Optional.empty()));
            }
        }
        Decision decision = Placement.place(new Snapshot(c.snapshot().pending(), after, OrgLimits.NONE, NOW));
        Set<WaitReason> capacity = EnumSet.of(WaitReason.NO_CAPACITY, WaitReason.NO_INSTANCE_LARGE_ENOUGH);
        Set<String> unserved = plan.unserved().stream().map(Plan.Unserved::jobId).collect(Collectors.toSet());
        Map<String, PendingJob> jobs = c.snapshot().pending().stream()
                .collect(Collectors.toMap(PendingJob::id, j -> j));
        decision.waiting().stream().filter(w -> capacity.contains(w.reason())).forEach(w -> {
            PendingJob job = jobs.get(w.jobId());
            boolean someTypeHolds = c.config().clustersOf(job.pool()).stream().flatMap(k -> k.types().stream())
                    .anyMatch(t -> t.type().capacity().fits(job.demand()));
            assertThat(someTypeHolds && !unserved.contains(job.id()))
                    .as("%s (%s, pool %s) waits: %s", job.id(), job.resourceClass().name(), job.pool(), w.message())
                    .isFalse();
        });
    }
}
