package dev.gantry.server.fleet;

import dev.gantry.scheduler.Instance;
import dev.gantry.scheduler.InstanceState;
import dev.gantry.scheduler.InstanceType;
import dev.gantry.scheduler.OrgLimits;
import dev.gantry.scheduler.PendingJob;
import dev.gantry.scheduler.ResourceClass;
import dev.gantry.scheduler.ResourceClasses;
import dev.gantry.scheduler.Resources;
import dev.gantry.scheduler.RunningJob;
import dev.gantry.scheduler.Snapshot;
import dev.gantry.server.agent.OpenClaims;
import dev.gantry.server.agent.TaskKey;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the scheduler's {@link Snapshot} from the database: every queued task as a pending job (its id is the
 * {@link TaskKey}'s text), every live agent as a ready instance (its id is the agent's) with the tasks it runs, and,
 * through the {@link Overlay}, what the autoscaler knows: instances still starting, instances draining. An agent is
 * live while it has a claim open here or was seen (a claim or a heartbeat) within {@code seenWithin}; a dead agent
 * drops out after that and attracts nothing. Thread-safe.
 */
public final class FleetSnapshots {
    /** The disk of an agent that did not say how much it has: enough that disk never limits it. */
    static final int UNKNOWN_DISK_GB = 1_000_000;

    private static final Logger LOG = LoggerFactory.getLogger(FleetSnapshots.class);

    private final ResourceClasses classes;
    private final ImagePools pools;
    private final OrgLimits limits;
    private final Duration seenWithin;
    private final Overlay overlay;
    private final OpenClaims claiming;
    private final ExpectedDurations durations = new ExpectedDurations();

    /** What the autoscaler adds to what the database shows; {@link #NONE} without one. */
    public interface Overlay {
        Overlay NONE = (observed, agentNames) -> observed;

        /** {@code observed} as placement should see it; {@code agentNames}: each agent instance's name, by id. */
        Snapshot apply(Snapshot observed, Map<String, String> agentNames);
    }

    /**
     * A snapshot as the database shows it, with each agent's name by instance id. Jobs of a paused pool are not in
     * it (nothing may start them, nor scale up for them) but in {@code paused}, with the pauses by pool.
     */
    public record Observed(Snapshot snapshot, Map<String, String> agentNames, List<PendingJob> paused,
                           Map<String, FleetDao.PoolPause> pauses) {
    }

    /** What placement sees, and the jobs of paused pools beside it. */
    public record Loaded(Snapshot snapshot, List<PendingJob> paused, Map<String, FleetDao.PoolPause> pauses) {
    }

    /**
     * @param seenWithin how recently an agent without an open claim must have been seen to count as live
     * @param claiming   the agents with a claim open in this process, live whenever they were last seen
     */
    public FleetSnapshots(ResourceClasses classes, ImagePools pools, OrgLimits limits, Duration seenWithin,
                          Overlay overlay, OpenClaims claiming) {
        this.claiming = Objects.requireNonNull(claiming, "claiming");
        this.classes = Objects.requireNonNull(classes, "classes");
        this.pools = Objects.requireNonNull(pools, "pools");
        this.limits = Objects.requireNonNull(limits, "limits");
        this.seenWithin = Objects.requireNonNull(seenWithin, "seenWithin");
        this.overlay = Objects.requireNonNull(overlay, "overlay");
    }

    /** The snapshot at {@code now}, read in {@code h}'s transaction, with the jobs of paused pools beside it. */
    public Loaded load(Handle h, Instant now) {
        Observed observed = observe(h, h.attach(FleetDao.class).queuedTasks(), now);
        return new Loaded(overlay.apply(observed.snapshot(), observed.agentNames()), observed.paused(),
                observed.pauses());
    }

    /** As {@link #load}, or empty without reading further when no task is queued: a claim's common case. */
    public Optional<Snapshot> loadIfPending(Handle h, Instant now) {
        List<FleetDao.QueuedTask> queued = h.attach(FleetDao.class).queuedTasks();
        if (queued.isEmpty()) {
            return Optional.empty();
        }
        Observed observed = observe(h, queued, now);
        return Optional.of(overlay.apply(observed.snapshot(), observed.agentNames()));
    }

    /** What the database shows, without the overlay: what the autoscaler itself observes. */
    public Observed observe(Handle h, Instant now) {
        return observe(h, h.attach(FleetDao.class).queuedTasks(), now);
    }

    private Observed observe(Handle h, List<FleetDao.QueuedTask> queued, Instant now) {
        FleetDao dao = h.attach(FleetDao.class);
        List<FleetDao.RunningTask> running = dao.runningTasks();
        List<FleetDao.AgentRow> agents = dao.agents(now.minus(seenWithin).atOffset(ZoneOffset.UTC),
                claiming.agents().toArray(UUID[]::new));
        Set<ExpectedDurations.Key> keys = new LinkedHashSet<>();
        queued.forEach(t -> keys.add(new ExpectedDurations.Key(t.projectId(), t.name())));
        running.forEach(t -> keys.add(new ExpectedDurations.Key(t.projectId(), t.name())));
        Map<ExpectedDurations.Key, Optional<Duration>> expected = durations.of(h, keys, now);

        Map<String, FleetDao.PoolPause> pauses = new HashMap<>();
        dao.pausedPools().forEach(p -> pauses.put(p.pool(), p));
        List<PendingJob> pending = new ArrayList<>(queued.size());
        List<PendingJob> paused = new ArrayList<>();
        Instant previous = null;
        long tie = 0;
        for (FleetDao.QueuedTask t : queued) {
            // Placement takes the oldest first and breaks ties by id, here a random job UUID: which of two jobs
            // unblocked in one advance started first would be a coin toss. Tasks queued in the same microsecond
            // (the database's precision) are spread a nanosecond apart in the order the query lists them, by job
            // number and node, so the tie-break is that order (and the deterministic simulation can replay it).
            tie = t.queuedAt().equals(previous) ? tie + 1 : 0;
            previous = t.queuedAt();
            PendingJob job = new PendingJob(new TaskKey(t.jobId(), t.nodeIndex()).toString(),
                    classOf(t.resourceClass(), t.cpu(), t.memoryMb()), t.organization(), t.queuedAt().plusNanos(tie),
                    pools.poolOf(t.executorType(), t.image()),
                    expected.get(new ExpectedDurations.Key(t.projectId(), t.name())));
            (pauses.containsKey(job.pool()) ? paused : pending).add(job);
        }
        Map<UUID, List<RunningJob>> runningByAgent = new HashMap<>();
        for (FleetDao.RunningTask t : running) {
            Optional<Duration> duration = expected.get(new ExpectedDurations.Key(t.projectId(), t.name()));
            Instant started = t.startedAt() == null ? now : t.startedAt();
            runningByAgent.computeIfAbsent(t.agentId(), id -> new ArrayList<>()).add(new RunningJob(
                    new TaskKey(t.jobId(), t.nodeIndex()).toString(),
                    classOf(t.resourceClass(), t.cpu(), t.memoryMb()).demand(), t.organization(),
                    duration.map(started::plus)));
        }
        List<Instance> instances = new ArrayList<>(agents.size());
        Map<String, String> names = new HashMap<>();
        for (FleetDao.AgentRow agent : agents) {
            List<RunningJob> jobs = runningByAgent.getOrDefault(agent.id(), List.of());
            instances.add(new Instance(agent.id().toString(), typeOf(agent, jobs), agent.pool(), InstanceState.READY,
                    jobs, Optional.empty()));
            names.put(agent.id().toString(), agent.name());
        }
        return new Observed(new Snapshot(pending, instances, limits, now), names, paused, pauses);
    }

    /** The job's class from the table; a class the table no longer has keeps the size the job was planned with. */
    private ResourceClass classOf(String name, int cpu, int memoryMb) {
        return classes.find(name).orElseGet(() -> new ResourceClass(name, cpu, memoryMb,
                Math.max(1, cpu * 10), 0));
    }

    /**
     * What the agent offers. It never shows as holding more than it has: a job matched before a change to the class
     * table (or to what the agent declares) widens it rather than making the snapshot impossible.
     */
    private static InstanceType typeOf(FleetDao.AgentRow agent, List<RunningJob> jobs) {
        Resources declared = new Resources(agent.cpu(), agent.memoryMb(),
                agent.diskGb() == null ? UNKNOWN_DISK_GB : agent.diskGb());
        Resources held = jobs.stream().map(RunningJob::holds).reduce(Resources.NONE, Resources::plus);
        if (!declared.fits(held)) {
            LOG.warn("agent {} ({}) runs tasks holding {}, more than the {} it offers", agent.name(), agent.id(),
                    held, declared);
            declared = new Resources(Math.max(declared.vcpu(), held.vcpu()),
                    Math.max(declared.memoryMb(), held.memoryMb()), Math.max(declared.diskGb(), held.diskGb()));
        }
        return new InstanceType("agent " + agent.name(), declared);
    }
}
