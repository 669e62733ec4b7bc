package dev.gantry.sim;

import dev.gantry.scheduler.Assignment;
import dev.gantry.scheduler.Decision;
import dev.gantry.scheduler.Instance;
import dev.gantry.scheduler.InstanceState;
import dev.gantry.scheduler.OrgLimits;
import dev.gantry.scheduler.PendingJob;
import dev.gantry.scheduler.RunningJob;
import dev.gantry.scheduler.Snapshot;
import dev.gantry.scheduler.fleet.SimulatedProvider.Machine;
import dev.gantry.sim.Scenario.Arrivals;
import dev.gantry.sim.Scenario.Workload;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * One run of a scenario under one policy: a discrete-event loop on a {@link VirtualClock}. Events are ordered by
 * time, then by the order they were scheduled, so ties are broken the same way every run; every random draw comes
 * from one {@link SplittableRandom} seeded by the caller. No threads, no wall clock.
 *
 * <p>Like the server: placement runs whenever something changed (a job arrived or ended, an instance came up), on the
 * policy's overlay of the observed snapshot; the fleet policy ticks every {@link Scenario#tick()}. Between those
 * moments nothing can change, so the loop jumps straight from one to the next. One use per instance.
 */
final class Simulation {
    private static final String ORG = "org";

    private record Event(Instant at, long seq, Runnable action) {
    }

    /** A job from arrival to end. */
    private static final class Job {
        final PendingJob pending;
        final int workload;
        final Duration duration;
        Instant startedAt;

        Job(PendingJob pending, int workload, Duration duration) {
            this.pending = pending;
            this.workload = workload;
            this.duration = duration;
        }
    }

    private final Scenario scenario;
    private final long seed;
    private final VirtualClock clock = new VirtualClock();
    private final SimulatedCloud cloud;
    private final Policy policy;
    private final Instant end;
    private final PriorityQueue<Event> queue = new PriorityQueue<>(
            Comparator.comparing(Event::at).thenComparingLong(Event::seq));
    private final List<SplittableRandom> workloadRandoms = new ArrayList<>();
    private final Map<String, String> poolOfCluster = new HashMap<>();
    private final Map<String, Job> pending = new LinkedHashMap<>();
    private final Map<String, List<Job>> running = new HashMap<>();
    private final Set<String> knownMachines = new HashSet<>();
    private final Metrics metrics;
    private final List<String> events = new ArrayList<>();
    private long seq;
    private long nextJob = 1;
    private Instant placementDueAt;

    Simulation(Scenario scenario, long seed, PolicyKind kind) {
        this.scenario = scenario;
        this.seed = seed;
        SplittableRandom random = new SplittableRandom(seed);
        // Split in a fixed order (cloud, controller, then each workload), so adding draws to one part of the run
        // does not shift another's.
        this.cloud = new SimulatedCloud(scenario, clock, random.split());
        SplittableRandom policyRandom = random.split();
        this.policy = kind == PolicyKind.GANTRY
                ? new GantryPolicy(scenario.fleet(), cloud, policyRandom)
                : new BaselinePolicy(scenario.fleet(), cloud, scenario.baseline().jobsPerInstance());
        scenario.workloads().forEach(w -> workloadRandoms.add(random.split()));
        scenario.fleet().clusters().forEach(c -> poolOfCluster.put(c.name(), c.pool()));
        this.end = VirtualClock.START.plus(scenario.runFor());
        this.metrics = new Metrics(scenario, VirtualClock.START);
    }

    Result run() {
        for (Scenario.CapacityChange change : scenario.cloud().capacity()) {
            schedule(VirtualClock.START.plus(change.at()), () -> {
                cloud.apply(change);
                events.add(at() + " CAPACITY " + change.cluster() + " " + change.type() + " limit "
                        + (change.limit().isPresent() ? change.limit().getAsInt() : "none"));
            });
        }
        for (int w = 0; w < scenario.workloads().size(); w++) {
            scheduleNextArrival(w, Duration.ZERO);
        }
        schedule(VirtualClock.START, this::tick);
        schedule(VirtualClock.START.plus(scenario.sampleEvery()), this::sample);
        while (!queue.isEmpty() && !queue.peek().at().isAfter(end)) {
            Event e = queue.poll();
            clock.set(e.at());
            e.action().run();
        }
        clock.set(end);
        metrics.fleetChanged(end, cloud.machines());
        pending.values().forEach(j -> metrics.stillWaiting(j.workload, j.pending.enqueuedAt(), end));
        running.values().forEach(js -> js.forEach(j -> metrics.ran(j.workload, j.startedAt, end)));
        return metrics.result(policy.name(), seed, events);
    }

    private void schedule(Instant at, Runnable action) {
        queue.add(new Event(at, seq++, action));
    }

    /** Placement runs once per instant at which something changed. */
    private void requestPlacement() {
        Instant now = clock.instant();
        if (!now.equals(placementDueAt)) {
            placementDueAt = now;
            schedule(now, this::place);
        }
    }

    private void scheduleNextArrival(int w, Duration after) {
        Workload workload = scenario.workloads().get(w);
        Optional<Duration> next = nextArrival(workload.arrivals(), after, workloadRandoms.get(w));
        next.filter(t -> t.compareTo(scenario.runFor()) < 0).ifPresent(t ->
                schedule(VirtualClock.START.plus(t), () -> arrive(w, t)));
    }

    /** The next arrival after {@code t}: spaced by the rate for steady arrivals, by thinning for Poisson ones. */
    private static Optional<Duration> nextArrival(Arrivals a, Duration t, SplittableRandom random) {
        double max = a.maxRate();
        if (max <= 0) {
            return Optional.empty();
        }
        double hours = t.toMillis() / 3_600_000.0;
        for (int tries = 0; tries < 1_000_000; tries++) {
            if (a.kind() == Arrivals.Kind.STEADY) {
                double rate = a.rateAt(Duration.ofMillis(Math.round(hours * 3_600_000)));
                // At a rate of zero (a diurnal trough) look again a minute later.
                hours += rate > 0 ? 1 / rate : 1 / 60.0;
                if (rate > 0) {
                    return Optional.of(Duration.ofMillis(Math.round(hours * 3_600_000)));
                }
            } else {
                hours += -Math.log(1 - random.nextDouble()) / max;
                Duration candidate = Duration.ofMillis(Math.round(hours * 3_600_000));
                if (random.nextDouble() * max < a.rateAt(candidate)) {
                    return Optional.of(candidate);
                }
            }
        }
        return Optional.empty();
    }

    private void arrive(int w, Duration t) {
        Workload workload = scenario.workloads().get(w);
        SplittableRandom random = workloadRandoms.get(w);
        Duration duration = Lognormal.draw(workload.duration(), random);
        // The server expects a job to run as long as the median of its recent runs: the workload's median.
        PendingJob job = new PendingJob(workload.name() + "-" + nextJob++, workload.resourceClass(), ORG,
                clock.instant(), workload.pool(), Optional.of(workload.duration().median()));
        pending.put(job.id(), new Job(job, w, duration));
        requestPlacement();
        scheduleNextArrival(w, t);
    }

    private void place() {
        if (pending.isEmpty()) {
            return;
        }
        Decision decision = policy.place(policy.overlay(observe()));
        Instant now = clock.instant();
        for (Assignment a : decision.assignments()) {
            Job job = pending.remove(a.jobId());
            job.startedAt = now;
            running.computeIfAbsent(a.instanceId(), k -> new ArrayList<>()).add(job);
            metrics.started(job.workload, job.pending.enqueuedAt(), now);
            schedule(now.plus(job.duration), () -> finish(a.instanceId(), job));
        }
    }

    private void finish(String instanceId, Job job) {
        running.get(instanceId).remove(job);
        metrics.ran(job.workload, job.startedAt, clock.instant());
        metrics.done(job.workload, job.pending.enqueuedAt());
        requestPlacement();
    }

    private void tick() {
        Instant now = clock.instant();
        place(); // as the server does, start what can start before the fleet is changed
        for (String e : policy.tick(observe())) {
            events.add(at() + " " + e);
        }
        List<Machine> machines = cloud.machines();
        metrics.fleetChanged(now, machines);
        for (Machine m : machines) {
            if (knownMachines.add(m.id())) {
                // An instance coming up is a change placement must see at once, not at the next tick.
                schedule(m.readyAt().isAfter(now) ? m.readyAt() : now, this::requestPlacement);
            }
        }
        schedule(now.plus(scenario.tick()), this::tick);
    }

    private void sample() {
        Instant now = clock.instant();
        metrics.sample(now, pendingPerWorkload(), cloud.machines());
        schedule(now.plus(scenario.sampleEvery()), this::sample);
    }

    private int[] pendingPerWorkload() {
        int[] counts = new int[scenario.workloads().size()];
        pending.values().forEach(j -> counts[j.workload]++);
        return counts;
    }

    /** What the server would observe now: the pending jobs, and the instances up with the jobs they run. */
    private Snapshot observe() {
        Instant now = clock.instant();
        List<Instance> instances = new ArrayList<>();
        Set<String> up = new HashSet<>();
        for (Machine m : cloud.readyBy(now)) {
            up.add(m.id());
            List<RunningJob> jobs = running.getOrDefault(m.id(), List.of()).stream()
                    .map(j -> new RunningJob(j.pending.id(), j.pending.demand(), ORG,
                            Optional.of(j.startedAt.plus(j.pending.expectedDuration().orElseThrow()))))
                    .toList();
            instances.add(new Instance(m.id(), m.type(), poolOfCluster.get(m.cluster()), InstanceState.READY, jobs,
                    Optional.empty()));
        }
        running.forEach((id, jobs) -> {
            if (!jobs.isEmpty() && !up.contains(id)) {
                throw new IllegalStateException("instance " + id + " was terminated while it ran " + jobs.size()
                        + " jobs; a policy must drain an instance before terminating it");
            }
        });
        List<PendingJob> jobs = pending.values().stream().map(j -> j.pending).toList();
        return new Snapshot(jobs, instances, OrgLimits.NONE, now);
    }

    private String at() {
        long s = Duration.between(VirtualClock.START, clock.instant()).toSeconds();
        return String.format("%02d:%02d:%02d", s / 3600, s / 60 % 60, s % 60);
    }
}
