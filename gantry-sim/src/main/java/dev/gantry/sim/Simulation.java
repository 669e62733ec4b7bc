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
import dev.gantry.resilience.RetryBudget;

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
    /** Jobs one dispatcher claim returns from the queue. */
    private static final int CLAIM_BATCH = 200;

    private record Event(Instant at, long seq, Runnable action) {
    }

    /** A job from arrival to end. */
    private static final class Job {
        final PendingJob pending;
        final int workload;
        final Duration duration;
        final String key;
        Instant startedAt;
        int startAttempts;
        Instant notBefore = Instant.MIN;

        Job(PendingJob pending, int workload, Duration duration, String key) {
            this.pending = pending;
            this.workload = workload;
            this.duration = duration;
            this.key = key;
        }
    }

    /** A user's request for a pipeline, with its idempotency key. */
    private record Trigger(int workload, String key) {
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
    private long nextTrigger = 1;
    private Instant placementDueAt;
    // The queue database and what answers its failures; all null in a scenario without a database.
    private final QueueDatabase database;
    private final Resilience resilience;
    private final boolean gantry;
    private final DispatchGate gate;
    private final Retries triggerRetries;
    private final Retries dispatchRetries;
    private final FaultCounts faults = new FaultCounts();
    private final Map<String, Integer> livePipelines = new HashMap<>();
    private final Set<String> startedKeys = new HashSet<>();
    private Instant pollAt;
    private final OutboundPool outbound;

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
        this.resilience = scenario.resilience();
        this.gantry = kind == PolicyKind.GANTRY;
        this.database = resilience.database().map(d -> new QueueDatabase(d, VirtualClock.START)).orElse(null);
        // Split last, so scenarios without a database draw exactly what they drew before.
        SplittableRandom jitter = random.split();
        Resilience.GantrySettings g = resilience.gantry();
        this.gate = gantry ? new DispatchGate(g, clock) : null;
        this.triggerRetries = gantry
                ? new BudgetedRetries(new RetryBudget(g.budgetRatio(), g.budgetBurst()), g.backoff(), jitter)
                : new FixedRetries(resilience.baseline().attempts(), resilience.baseline().every());
        this.outbound = resilience.outbound().map(o -> new OutboundPool(o, gantry, g, resilience.baseline(),
                scenario.warmUp(), clock, this::schedule, jitter.split())).orElse(null);
        this.dispatchRetries = gantry
                ? new BudgetedRetries(new RetryBudget(g.budgetRatio(), g.budgetBurst()), g.backoff(), jitter)
                : new FixedRetries(resilience.baseline().attempts(), resilience.baseline().every());
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
        if (outbound != null) {
            // A stream of its own, so endpoint calls shift no other draw.
            SplittableRandom calls = new SplittableRandom(seed ^ 0x5DEECE66DL);
            for (Resilience.Endpoint e : resilience.outbound().orElseThrow().endpoints()) {
                scheduleNextCall(e, Duration.ZERO, calls.split());
            }
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
        Optional<Result.FaultSummary> summary = database == null ? Optional.empty()
                : Optional.of(faults.summary(scenario, database, gate == null ? 0 : gate.pauses(),
                        pending.size()));
        return metrics.result(policy.name(), seed, events, summary,
                Optional.ofNullable(outbound).map(OutboundPool::summary));
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

    /** The server's calls to an endpoint: a Poisson stream, whatever the endpoint's health. */
    private void scheduleNextCall(Resilience.Endpoint e, Duration after, SplittableRandom random) {
        if (e.callsPerHour() <= 0) {
            return;
        }
        Duration next = after.plusMillis(Math.max(1, Math.round(-Math.log(1 - random.nextDouble())
                / e.callsPerHour() * 3_600_000)));
        if (next.compareTo(scenario.runFor()) < 0) {
            schedule(VirtualClock.START.plus(next), () -> {
                outbound.callEndpoint(e);
                scheduleNextCall(e, next, random);
            });
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
        if (database == null) {
            createPipeline(w, "");
        } else {
            Trigger trigger = new Trigger(w, "trigger-" + nextTrigger++);
            faults.triggers++;
            attemptTrigger(trigger, 0);
            resilience.clients().retrigger().ifPresent(r ->
                    schedule(clock.instant().plus(r.after()), () -> maybeRetrigger(trigger, 1)));
        }
        scheduleNextArrival(w, t);
    }

    /** A pipeline (one job here) is committed: its job waits in the queue. */
    private void createPipeline(int w, String key) {
        Workload workload = scenario.workloads().get(w);
        SplittableRandom random = workloadRandoms.get(w);
        Duration duration = Lognormal.draw(workload.duration(), random);
        // The server expects a job to run as long as the median of its recent runs: the workload's median.
        PendingJob job = new PendingJob(workload.name() + "-" + nextJob++, workload.resourceClass(), ORG,
                clock.instant(), workload.pool(), Optional.of(workload.duration().median()));
        pending.put(job.id(), new Job(job, w, duration, key));
        requestPlacement();
    }

    /**
     * One attempt to commit a trigger ({@code failed} attempts before it). Gantry's server dedupes on the trigger's
     * idempotency key; the baseline's has none, so a trigger that committed but whose client saw a failure, or that a
     * user repeats, makes another pipeline.
     */
    private void attemptTrigger(Trigger trigger, int failed) {
        if (failed == 0) {
            triggerRetries.firstAttempt();
            faults.firstWrites++;
        }
        QueueDatabase.Outcome outcome = write();
        if (outcome.committed()) {
            int live = livePipelines.getOrDefault(trigger.key(), 0);
            if (gantry && live > 0) {
                faults.deduplicated++;
            } else {
                faults.duplicates += live > 0 ? 1 : 0;
                faults.pipelines++;
                livePipelines.merge(trigger.key(), 1, Integer::sum);
                createPipeline(trigger.workload(), trigger.key());
            }
        }
        if (!outcome.committed() || outcome.latency().compareTo(resilience.clients().timeout()) > 0) {
            Optional<Duration> retry = triggerRetries.next(failed + 1);
            if (retry.isPresent()) {
                schedule(clock.instant().plus(retry.get()), () -> attemptTrigger(trigger, failed + 1));
            } else if (!outcome.committed()) {
                faults.refused++;
            }
        }
    }

    /** A user who has not seen the pipeline start triggers it again (with the same key, which only Gantry reads). */
    private void maybeRetrigger(Trigger trigger, int time) {
        Resilience.Retrigger r = resilience.clients().retrigger().orElseThrow();
        if (startedKeys.contains(trigger.key()) || time > r.times()) {
            return;
        }
        faults.retriggers++;
        faults.triggers++;
        attemptTrigger(trigger, 0);
        schedule(clock.instant().plus(r.after()), () -> maybeRetrigger(trigger, time + 1));
    }

    /** A write to the queue database; Gantry's self-pause sees every outcome, as the server's writes report to it. */
    private QueueDatabase.Outcome write() {
        QueueDatabase.Outcome outcome = database.write(clock.instant());
        if (gate != null) {
            gate.recordWrite(outcome).ifPresent(e -> events.add(at() + " " + e));
        }
        return outcome;
    }

    /** How many jobs Gantry's dispatcher may start now; when none, schedules the next look. */
    private int dispatchAllowance() {
        gate.pauseChange().ifPresent(e -> events.add(at() + " " + e));
        int allowance = gate.allowance();
        if (allowance == 0) {
            pollIn(gate.untilNextToken());
        }
        return allowance;
    }

    private void pollIn(Duration wait) {
        Instant at = clock.instant().plus(wait);
        if (pollAt == null || !pollAt.isAfter(clock.instant()) || at.isBefore(pollAt)) {
            pollAt = at;
            schedule(at, this::requestPlacement);
        }
    }

    private void place() {
        if (pending.isEmpty()) {
            return;
        }
        int allowance = database != null && gantry ? dispatchAllowance() : Integer.MAX_VALUE;
        if (allowance == 0) {
            return;
        }
        Decision decision = policy.place(policy.overlay(observe()));
        Instant now = clock.instant();
        for (Assignment a : decision.assignments()) {
            if (database != null) {
                if (gantry && dispatchAllowance() == 0) {
                    break;
                }
                if (!dispatch(pending.get(a.jobId()))) {
                    if (gantry) {
                        break; // the failed write paused dispatch; the job waits in the queue
                    }
                    continue;
                }
                if (gantry) {
                    gate.started();
                }
            }
            Job job = pending.remove(a.jobId());
            job.startedAt = now;
            startedKeys.add(job.key);
            running.computeIfAbsent(a.instanceId(), k -> new ArrayList<>()).add(job);
            if (outbound == null) {
                metrics.started(job.workload, job.pending.enqueuedAt(), now);
                schedule(now.plus(job.duration), () -> finish(a.instanceId(), job));
            } else {
                // The job holds its room from now; it starts when the call to its agent is done.
                outbound.startJob(job.pending.enqueuedAt(), () -> {
                    job.startedAt = clock.instant();
                    metrics.started(job.workload, job.pending.enqueuedAt(), job.startedAt);
                    schedule(job.startedAt.plus(job.duration), () -> finish(a.instanceId(), job));
                }, () -> {
                    running.get(a.instanceId()).remove(job);
                    faults.failedToStart++;
                    requestPlacement();
                });
            }
        }
    }

    /**
     * The write that starts a job. On failure the job stays in the queue: Gantry retries it when dispatch resumes
     * (its budget and backoff space the attempts); the baseline retries it a fixed interval later and, after its last
     * attempt, fails it: the job failed to start, as in the incident.
     */
    private boolean dispatch(Job job) {
        if (job.startAttempts == 0) {
            dispatchRetries.firstAttempt();
            faults.firstWrites++;
        }
        job.startAttempts++;
        if (write().committed()) {
            return true;
        }
        Optional<Duration> retry = dispatchRetries.next(job.startAttempts);
        if (retry.isPresent() || gantry) {
            // Out of budget, Gantry's message stays queued and is retried after the backoff's cap, never dropped.
            // Retry times are rounded up to the second, so a retrying backlog costs one placement a second.
            Instant at = clock.instant().plus(retry.orElse(resilience.gantry().backoff().cap()));
            job.notBefore = at.getNano() == 0 ? at : at.plusSeconds(1).minusNanos(at.getNano());
            schedule(job.notBefore, this::requestPlacement);
        } else {
            pending.remove(job.pending.id());
            livePipelines.merge(job.key, -1, Integer::sum);
            faults.failedToStart++;
        }
        return false;
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
        if (outbound != null) {
            outbound.sample(now);
        }
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
        // A job whose start failed waits out its retry delay before placement sees it again.
        // With a queue database, the dispatcher sees what one claim returns, the oldest jobs ready to start (as the
        // server's batch claim does), not a backlog of thousands.
        List<PendingJob> jobs = pending.values().stream().filter(j -> !j.notBefore.isAfter(now))
                .limit(database == null ? Long.MAX_VALUE : CLAIM_BATCH).map(j -> j.pending).toList();
        return new Snapshot(jobs, instances, OrgLimits.NONE, now);
    }

    private String at() {
        long s = Duration.between(VirtualClock.START, clock.instant()).toSeconds();
        return String.format("%02d:%02d:%02d", s / 3600, s / 60 % 60, s % 60);
    }
}
