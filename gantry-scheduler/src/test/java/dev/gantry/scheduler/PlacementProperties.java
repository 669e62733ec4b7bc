package dev.gantry.scheduler;

import static dev.gantry.scheduler.Fleet.at;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.function.Function;
import java.util.stream.Collectors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * Placement over random fleets: it never over-commits an instance, accounts for every job once, respects pools,
 * states and organisation limits, and does not depend on the order of its input.
 */
class PlacementProperties {
    private static final List<ResourceClass> CLASSES = Fleet.CLASSES.all();
    private static final List<InstanceType> TYPES = List.of(Fleet.type("m4", 4), Fleet.M8, Fleet.M16,
            new InstanceType("mem-heavy", new Resources(4, 65536, 100)), Fleet.type("m24", 24));
    private static final List<String> POOLS = List.of(Instance.DEFAULT_POOL, Instance.DEFAULT_POOL, "macos");
    private static final List<String> ORGS = List.of("acme", "globex", "initech");

    record InstanceSpec(int type, int pool, InstanceState state, List<Integer> classes, List<Integer> endMinutes) {
    }

    record JobSpec(int resourceClass, int org, int enqueuedMinute, int pool, int durationMinutes) {
    }

    @Provide
    Arbitrary<Snapshot> snapshots() {
        Arbitrary<InstanceSpec> instance = Combinators.combine(
                Arbitraries.integers().between(0, TYPES.size() - 1),
                Arbitraries.integers().between(0, POOLS.size() - 1),
                Arbitraries.of(InstanceState.class),
                Arbitraries.integers().between(0, CLASSES.size() - 1).list().ofMaxSize(8),
                Arbitraries.integers().between(-1, 120).list().ofSize(8)).as(InstanceSpec::new);
        Arbitrary<JobSpec> job = Combinators.combine(
                Arbitraries.integers().between(0, CLASSES.size() - 1),
                Arbitraries.integers().between(0, ORGS.size() - 1),
                Arbitraries.integers().between(-120, 0),
                Arbitraries.integers().between(0, POOLS.size() - 1),
                Arbitraries.integers().between(-1, 120)).as(JobSpec::new);
        Arbitrary<Map<String, Integer>> limits = Arbitraries.maps(Arbitraries.of(ORGS),
                Arbitraries.integers().between(0, 6)).ofMaxSize(2);
        return Combinators.combine(instance.list().ofMaxSize(8), job.list().ofMaxSize(30), limits)
                .as(PlacementProperties::build);
    }

    private static Snapshot build(List<InstanceSpec> instanceSpecs, List<JobSpec> jobSpecs, Map<String, Integer> limits) {
        List<Instance> instances = new ArrayList<>();
        for (int i = 0; i < instanceSpecs.size(); i++) {
            InstanceSpec spec = instanceSpecs.get(i);
            InstanceType type = TYPES.get(spec.type());
            List<RunningJob> running = new ArrayList<>();
            Resources free = type.capacity();
            for (int k = 0; k < spec.classes().size(); k++) {
                ResourceClass c = CLASSES.get(spec.classes().get(k));
                if (spec.state() != InstanceState.PROVISIONING && free.fits(c.demand())) {
                    int end = spec.endMinutes().get(k);
                    running.add(new RunningJob("i" + i + "-r" + k, c.demand(), ORGS.get(k % ORGS.size()),
                            end < 0 ? Optional.empty() : Optional.of(at(end - 30))));
                    free = free.minus(c.demand());
                }
            }
            Optional<Instant> readyAt = spec.classes().isEmpty() ? Optional.empty() : Optional.of(at(3));
            instances.add(new Instance("i" + i, type, POOLS.get(spec.pool()), spec.state(), running, readyAt));
        }
        List<PendingJob> pending = new ArrayList<>();
        for (int j = 0; j < jobSpecs.size(); j++) {
            JobSpec spec = jobSpecs.get(j);
            PendingJob job = new PendingJob("j" + j, CLASSES.get(spec.resourceClass()), ORGS.get(spec.org()),
                    at(spec.enqueuedMinute()), POOLS.get(spec.pool()),
                    spec.durationMinutes() < 0 ? Optional.empty()
                            : Optional.of(Duration.ofMinutes(spec.durationMinutes())));
            pending.add(job);
        }
        return new Snapshot(pending, instances, new OrgLimits(limits), at(0));
    }

    @Property(tries = 300)
    void no_instance_is_ever_over_capacity_in_any_dimension(@ForAll("snapshots") Snapshot s) {
        Decision d = Placement.place(s);
        Map<String, PendingJob> jobs = byId(s.pending(), PendingJob::id);
        Map<String, Resources> used = new HashMap<>();
        for (Instance i : s.instances()) {
            used.put(i.id(), i.type().capacity().minus(i.free()));
        }
        for (Assignment a : d.assignments()) {
            used.merge(a.instanceId(), jobs.get(a.jobId()).demand(), Resources::plus);
        }
        for (Instance i : s.instances()) {
            assertThat(i.type().capacity().fits(used.get(i.id())))
                    .as("instance %s uses %s of %s", i.id(), used.get(i.id()), i.type().capacity()).isTrue();
        }
    }

    @Property(tries = 300)
    void every_job_is_placed_on_a_ready_instance_of_its_pool_or_waits_once(@ForAll("snapshots") Snapshot s) {
        Decision d = Placement.place(s);
        Map<String, PendingJob> jobs = byId(s.pending(), PendingJob::id);
        Map<String, Instance> instances = byId(s.instances(), Instance::id);

        List<String> accounted = new ArrayList<>(d.assignments().stream().map(Assignment::jobId).toList());
        accounted.addAll(d.waiting().stream().map(Waiting::jobId).toList());
        assertThat(accounted).containsExactlyInAnyOrderElementsOf(jobs.keySet());
        for (Assignment a : d.assignments()) {
            Instance i = instances.get(a.instanceId());
            assertThat(i.state()).isEqualTo(InstanceState.READY);
            assertThat(i.pool()).isEqualTo(jobs.get(a.jobId()).pool());
        }
        for (Waiting w : d.waiting()) {
            w.estimatedStart().ifPresent(t -> assertThat(t).isAfterOrEqualTo(s.now()));
        }
    }

    @Property(tries = 300)
    void no_organisation_starts_jobs_beyond_its_limit(@ForAll("snapshots") Snapshot s) {
        Decision d = Placement.place(s);
        Map<String, PendingJob> jobs = byId(s.pending(), PendingJob::id);
        Map<String, Long> runningBefore = s.instances().stream().flatMap(i -> i.running().stream())
                .collect(Collectors.groupingBy(RunningJob::organization, Collectors.counting()));
        Map<String, Long> started = d.assignments().stream()
                .collect(Collectors.groupingBy(a -> jobs.get(a.jobId()).organization(), Collectors.counting()));
        started.forEach((org, n) -> s.limits().limitOf(org).ifPresent(max -> assertThat(n)
                .isLessThanOrEqualTo(Math.max(0, max - runningBefore.getOrDefault(org, 0L)))));
    }

    @Property(tries = 200)
    void the_decision_does_not_depend_on_the_order_of_the_snapshot(@ForAll("snapshots") Snapshot s,
                                                                    @ForAll long shuffleSeed) {
        List<PendingJob> pending = new ArrayList<>(s.pending());
        List<Instance> instances = new ArrayList<>(s.instances());
        Collections.shuffle(pending, new Random(shuffleSeed));
        Collections.shuffle(instances, new Random(shuffleSeed + 1));

        assertThat(Placement.place(new Snapshot(pending, instances, s.limits(), s.now())))
                .isEqualTo(Placement.place(s));
    }

    /**
     * With classes of 1, 2, 4, 8 and 16 vCPU (each a power-of-two multiple of the smallest, memory and disk in
     * proportion) and instances a multiple of the largest, placing a batch largest first onto empty instances uses
     * exactly the lower bound: total demanded vCPU over vCPU per instance, rounded up. Sizes that divide each other
     * leave every partly used instance with room for any job not larger than the last, so best fit never opens an
     * empty instance while a used one has room.
     */
    @Property(tries = 300)
    void a_batch_of_divisible_sizes_uses_exactly_the_lower_bound_of_instances(
            @ForAll("divisibleClasses") List<ResourceClass> batch, @ForAll @IntRange(min = 1, max = 3) int multiple) {
        InstanceType type = Fleet.type("m" + 16 * multiple, 16 * multiple);
        List<ResourceClass> largestFirst = new ArrayList<>(batch);
        largestFirst.sort((a, b) -> Integer.compare(b.vcpu(), a.vcpu()));
        List<PendingJob> pending = new ArrayList<>();
        for (int j = 0; j < largestFirst.size(); j++) {
            pending.add(new PendingJob("j%03d".formatted(j), largestFirst.get(j), "org", at(-1000 + j)));
        }
        List<Instance> empty = new ArrayList<>();
        for (int i = 0; i < batch.size(); i++) {
            empty.add(Instance.ready("i%03d".formatted(i), type, List.of()));
        }

        Decision d = Placement.place(new Snapshot(pending, empty, OrgLimits.NONE, at(0)));

        int demanded = batch.stream().mapToInt(ResourceClass::vcpu).sum();
        int lowerBound = (demanded + type.capacity().vcpu() - 1) / type.capacity().vcpu();
        assertThat(d.waiting()).isEmpty();
        assertThat(d.assignments().stream().map(Assignment::instanceId).distinct().count()).isEqualTo(lowerBound);
    }

    @Provide
    Arbitrary<List<ResourceClass>> divisibleClasses() {
        return Arbitraries.of("small", "medium", "large", "xlarge", "2xlarge").map(Fleet.CLASSES::get)
                .list().ofMinSize(1).ofMaxSize(60);
    }

    private static <T> Map<String, T> byId(List<T> values, Function<T, String> id) {
        return values.stream().collect(Collectors.toMap(id, v -> v));
    }
}
