package dev.gantry.scheduler.fleet;

import dev.gantry.scheduler.Instance;
import dev.gantry.scheduler.InstanceState;
import dev.gantry.scheduler.PendingJob;
import dev.gantry.scheduler.RunningJob;
import dev.gantry.scheduler.Snapshot;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.random.RandomGenerator;
import java.util.regex.Pattern;

/**
 * Runs the fleet: owns the instances it launched, their states and which types are short; on each {@link #tick} asks
 * the {@link Autoscaler} for a plan and carries it out through the {@link FleetProvider}. Reads no clock (time comes
 * with each snapshot) and draws jitter only from the generator it is given, so with {@link SimulatedProvider} and a
 * virtual clock a run is deterministic; the server and the simulator use the same class.
 *
 * <p>Flow, once per scheduling round: build the observed snapshot (registered agents and their jobs), call
 * {@link #overlay} and give the result to {@code Placement.place} (so draining instances get no job and provisioning
 * ones count for estimates), then call {@link #tick} with the same observed snapshot. Instance ids are
 * {@code <cluster>-<n>}; the agent of an instance must register under that name, which is how the controller learns
 * it is up. The server also tells it the names of every live agent ({@link #namesInUse}), so that a new instance never
 * takes the name of one.
 *
 * <p>An instance that was up and is missing from a snapshot is not given up at once: a snapshot is built from the
 * agents seen lately, and after a database outage none could be seen. It stays {@linkplain #overlay counted} as it
 * was and is replaced only if it is still missing {@link FleetConfig#lostAfter} after the first tick that noticed.
 * On its first tick the controller terminates what a previous server {@linkplain FleetProvider#leftBehind left
 * behind} and never reuses those ids.
 *
 * <p>Thread-safe: every method is synchronized; the provider is called from {@link #tick} only.
 */
public final class FleetController {
    /** How many events {@link #recentEvents} keeps. */
    public static final int RECENT_EVENTS = 500;
    private static final Pattern NUMBER = Pattern.compile("[0-9]{1,18}");

    private final FleetConfig config;
    private final FleetProvider provider;
    private final RandomGenerator random;
    private final Map<String, Managed> managed = new LinkedHashMap<>();
    private final Set<String> terminated = new HashSet<>();
    private final Deque<FleetEvent> recent = new ArrayDeque<>();
    private TypeAvailability availability = TypeAvailability.NONE;
    private long nextId = 1;
    private Optional<Instant> lastTick = Optional.empty();
    private boolean leftBehindTerminated;

    /** An instance this controller launched and has not terminated. */
    private static final class Managed {
        final String id;
        final Cluster cluster;
        final RankedType type;
        final Instant launchedAt;
        final Optional<Instant> expectedReadyAt;
        InstanceState state = InstanceState.PROVISIONING;
        Optional<Instant> idleSince = Optional.empty();
        /** As the last snapshot that had it showed it; empty until it came up. */
        Optional<Instance> lastSeen = Optional.empty();
        /** Since the first tick that found it missing (or the first after a blind spell); empty while it is there. */
        Optional<Instant> missingSince = Optional.empty();

        Managed(String id, Cluster cluster, RankedType type, Instant launchedAt, Optional<Instant> expectedReadyAt) {
            this.id = id;
            this.launchedAt = launchedAt;
            this.cluster = cluster;
            this.type = type;
            this.expectedReadyAt = expectedReadyAt;
        }
    }

    /**
     * @param random draws the jitter of unavailable periods: seeded in tests and the simulator, any generator in the
     *               server
     */
    public FleetController(FleetConfig config, FleetProvider provider, RandomGenerator random) {
        this.config = config;
        this.provider = provider;
        this.random = random;
    }

    /**
     * {@code observed} as placement should see it: instances this controller launched are in their cluster's pool,
     * the ones it is draining are {@code DRAINING}, ones still provisioning are added (with their expected ready
     * time), terminated ones are removed. One that was up and is missing now is added as if it were starting again
     * ({@code PROVISIONING} with no expected time, or {@code DRAINING} if it was): no new job waits for an agent that
     * may be dead, yet it still counts for its cluster's size and for demand, with the jobs it ran when last seen
     * (less those queued again), so nothing is launched in its place before {@link FleetConfig#lostAfter}.
     */
    public synchronized Snapshot overlay(Snapshot observed) {
        List<Instance> instances = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (Instance i : observed.instances()) {
            seen.add(i.id());
            if (terminated.contains(i.id())) {
                continue;
            }
            Managed m = managed.get(i.id());
            if (m == null) {
                instances.add(i);
                continue;
            }
            // Ours: in its cluster's pool whatever the agent reported, and draining if we said so.
            InstanceState state = m.state == InstanceState.DRAINING ? InstanceState.DRAINING : i.state();
            instances.add(new Instance(i.id(), i.type(), m.cluster.pool(), state, i.running(), i.readyAt()));
        }
        Set<String> queued = new HashSet<>();
        observed.pending().stream().map(PendingJob::id).forEach(queued::add);
        for (Managed m : managed.values()) {
            if (seen.contains(m.id)) {
                continue;
            }
            if (m.state == InstanceState.PROVISIONING) {
                instances.add(new Instance(m.id, m.type.type(), m.cluster.pool(), InstanceState.PROVISIONING,
                        List.of(), m.expectedReadyAt));
            } else {
                instances.add(asMissing(m, queued));
            }
        }
        return new Snapshot(observed.pending(), instances, observed.limits(), observed.now());
    }

    /**
     * Notes the names live agents go by, launched by this controller or not: no instance launched from now on gets
     * one of them, so no two live agents share a name (after a restart, an agent the killed server started may still
     * be registered under its instance id, and anybody may start an agent called {@code <cluster>-<n>}).
     */
    public synchronized void namesInUse(Collection<String> names) {
        names.forEach(this::neverGive);
    }

    /**
     * Brings the fleet in line with demand at {@code observed.now()}: notes which instances came up, went idle or
     * vanished, then plans and launches, drains and terminates. When a type is short (or its launch fails) it is
     * marked unavailable and the plan is made again at once, so the next type is asked for in the same tick.
     *
     * @return what happened in this tick, in order
     */
    public synchronized List<FleetEvent> tick(Snapshot observed) {
        Instant now = observed.now();
        List<FleetEvent> events = new ArrayList<>();
        if (!leftBehindTerminated) {
            leftBehindTerminated = true;
            terminateLeftBehind(now, events);
        }
        reconcile(observed, events);
        // Each retry follows a shortage or failure, which marks one more (cluster, type) unavailable: bounded.
        int attempts = config.clusters().stream().mapToInt(c -> c.types().size()).sum() + 1;
        for (int attempt = 0; attempt < attempts; attempt++) {
            Plan plan = Autoscaler.plan(overlay(observed), config, members(), availability);
            if (attempt == 0) {
                scaleIn(plan, now, events); // a re-plan only changes launches; its scale-ins were already applied
            }
            if (launch(plan, now, events)) {
                break;
            }
        }
        events.forEach(this::remember);
        return events;
    }

    /** The last {@value #RECENT_EVENTS} events, oldest first. */
    public synchronized List<FleetEvent> recentEvents() {
        return List.copyOf(recent);
    }

    /** Which types are short now. */
    public synchronized TypeAvailability availability() {
        return availability;
    }

    /** The instances this controller runs and their states, by id. */
    public synchronized Map<String, InstanceState> instances() {
        Map<String, InstanceState> out = new LinkedHashMap<>();
        managed.values().forEach(m -> out.put(m.id, m.state));
        return out;
    }

    /**
     * Terminates what a previous server left running rather than adopting it: a local agent exits by itself once the
     * server that started it is gone, so one still running is on its way out or failed to notice, and it may carry
     * settings (server URL, executor) the new server no longer has. Its jobs' leases run out and they are retried as
     * a lost agent's are; its id is never given again.
     */
    private void terminateLeftBehind(Instant now, List<FleetEvent> events) {
        for (FleetProvider.LeftBehind left : provider.leftBehind()) {
            neverGive(left.instanceId());
            provider.terminate(left.instanceId());
            events.add(new FleetEvent(now, FleetEvent.Kind.TERMINATED, left.cluster(), left.type(), left.instanceId(),
                    "left running by a previous server; terminated, not adopted"));
        }
    }

    private void reconcile(Snapshot observed, List<FleetEvent> events) {
        Instant now = observed.now();
        // Ticks this far apart mean the controller could not look (the server's database was down, say): no agent
        // could be seen meanwhile, so silence is counted afresh from this tick.
        boolean wasBlind = lastTick.filter(t -> Duration.between(t, now).compareTo(blindAfter()) > 0).isPresent();
        lastTick = Optional.of(now);
        Map<String, Instance> seen = new LinkedHashMap<>();
        observed.instances().forEach(i -> seen.put(i.id(), i));
        terminated.retainAll(seen.keySet()); // forget a terminated instance once it is gone from the snapshot
        for (Managed m : List.copyOf(managed.values())) {
            Instance i = seen.get(m.id);
            if (i == null) {
                if (m.state != InstanceState.PROVISIONING) {
                    missing(m, now, wasBlind, events);
                }
                continue;
            }
            if (m.state == InstanceState.PROVISIONING) {
                m.state = InstanceState.READY;
                events.add(event(now, FleetEvent.Kind.READY, m, "registered"));
            } else if (m.missingSince.isPresent()) {
                events.add(event(now, FleetEvent.Kind.READY, m, "back; missing since " + m.missingSince.get()));
            }
            m.missingSince = Optional.empty();
            m.lastSeen = Optional.of(i);
            m.idleSince = i.running().isEmpty() ? Optional.of(m.idleSince.orElse(now)) : Optional.empty();
        }
    }

    /** A ready or draining instance is missing from the snapshot: noted, or replaced once past the deadline. */
    private void missing(Managed m, Instant now, boolean wasBlind, List<FleetEvent> events) {
        boolean noticed = m.missingSince.isEmpty();
        if (noticed || wasBlind) {
            m.missingSince = Optional.of(now);
        }
        Instant deadline = m.missingSince.orElseThrow().plus(config.lostAfter());
        if (deadline.isAfter(now)) {
            if (noticed) {
                events.add(event(now, FleetEvent.Kind.MISSING, m, "not in the snapshot (its agent neither claims nor"
                        + " heartbeats); kept as it was, replaced if still missing at " + deadline));
            }
            return;
        }
        provider.terminate(m.id);
        managed.remove(m.id);
        events.add(event(now, FleetEvent.Kind.LOST, m, "missing since " + m.missingSince.orElseThrow() + ", past the "
                + config.lostAfter() + " it may be silent; cleaned up"));
    }

    /** A gap between ticks longer than this is a spell in which the controller could not see (a quarter deadline). */
    private Duration blindAfter() {
        return config.lostAfter().dividedBy(4);
    }

    private static Instance asMissing(Managed m, Set<String> queued) {
        Instance last = m.lastSeen.orElseThrow();
        List<RunningJob> running = last.running().stream().filter(j -> !queued.contains(j.id())).toList();
        InstanceState state = m.state == InstanceState.DRAINING ? InstanceState.DRAINING : InstanceState.PROVISIONING;
        return new Instance(m.id, last.type(), m.cluster.pool(), state, running, Optional.empty());
    }

    /** Moves {@link #nextId} past {@code name} if it is an id this controller could give ({@code <cluster>-<n>}). */
    private void neverGive(String name) {
        for (Cluster c : config.clusters()) {
            String prefix = c.name() + "-";
            if (name.startsWith(prefix) && NUMBER.matcher(name.substring(prefix.length())).matches()) {
                nextId = Math.max(nextId, Long.parseLong(name.substring(prefix.length())) + 1);
            }
        }
    }

    private List<Member> members() {
        return managed.values().stream().map(m -> new Member(m.id, m.cluster.name(), m.launchedAt, m.idleSince,
                m.missingSince.isPresent())).toList();
    }

    private void scaleIn(Plan plan, Instant now, List<FleetEvent> events) {
        for (Plan.ScaleIn s : plan.scaleIns()) {
            Managed m = managed.get(s.instanceId());
            if (s.action() == Plan.ScaleIn.Action.DRAIN) {
                m.state = InstanceState.DRAINING;
                events.add(event(now, FleetEvent.Kind.DRAINING, m, s.reason()));
            } else {
                provider.terminate(m.id);
                managed.remove(m.id);
                terminated.add(m.id);
                events.add(event(now, FleetEvent.Kind.TERMINATED, m, s.reason()));
            }
        }
    }

    /** Carries out the plan's launches; false when a shortage calls for a new plan. */
    private boolean launch(Plan plan, Instant now, List<FleetEvent> events) {
        for (Plan.Launch l : plan.launches()) {
            Cluster cluster = config.cluster(l.cluster()).orElseThrow();
            RankedType type = cluster.type(l.type()).orElseThrow();
            for (int n = 0; n < l.count(); n++) {
                String id = cluster.name() + "-" + nextId++;
                switch (launchOne(cluster, type, id)) {
                    case FleetProvider.LaunchResult.Launched launched -> {
                        Managed m = new Managed(id, cluster, type, now, launched.expectedReadyAt());
                        managed.put(id, m);
                        availability = availability.launched(cluster.name(), type.name());
                        events.add(event(now, FleetEvent.Kind.LAUNCHED, m, l.reason()));
                    }
                    case FleetProvider.LaunchResult.InsufficientCapacity short_ -> {
                        availability = availability.unavailable(cluster.name(), type.name(), now,
                                config.unavailableFor(), random);
                        events.add(new FleetEvent(now, FleetEvent.Kind.INSUFFICIENT_CAPACITY, cluster.name(),
                                type.name(), "", short_.detail() + "; skipped until "
                                + availability.unavailableUntil(cluster.name(), type.name()).orElseThrow()
                                + ", falling back to the next type"));
                        return false;
                    }
                    case FleetProvider.LaunchResult.Failed failed -> {
                        // Rested like a shortage, so a failing type or API is retried once per period, not every tick.
                        availability = availability.unavailable(cluster.name(), type.name(), now,
                                config.unavailableFor(), random);
                        events.add(new FleetEvent(now, FleetEvent.Kind.LAUNCH_FAILED, cluster.name(), type.name(),
                                id, failed.reason() + "; skipped until "
                                + availability.unavailableUntil(cluster.name(), type.name()).orElseThrow()
                                + ", falling back to the next type"));
                        return false;
                    }
                }
            }
        }
        return true;
    }

    /** The provider's answer; a provider that throws has failed the launch, which is recorded like any failure. */
    private FleetProvider.LaunchResult launchOne(Cluster cluster, RankedType type, String id) {
        try {
            return provider.launch(cluster.name(), type.type(), id);
        } catch (RuntimeException e) {
            return new FleetProvider.LaunchResult.Failed("provider threw " + e);
        }
    }

    private FleetEvent event(Instant now, FleetEvent.Kind kind, Managed m, String message) {
        return new FleetEvent(now, kind, m.cluster.name(), m.type.name(), m.id, message);
    }

    private void remember(FleetEvent e) {
        if (recent.size() == RECENT_EVENTS) {
            recent.removeFirst();
        }
        recent.addLast(e);
    }
}
