package dev.gantry.server.fleet;

import dev.gantry.scheduler.Instance;
import dev.gantry.scheduler.InstanceState;
import dev.gantry.scheduler.Snapshot;
import dev.gantry.scheduler.fleet.FleetConfig;
import dev.gantry.scheduler.fleet.FleetController;
import dev.gantry.scheduler.fleet.FleetEvent;
import dev.gantry.scheduler.fleet.FleetProvider;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The autoscaler in the server: once a second it reads what the database shows (queued tasks, live agents) and lets
 * the {@link FleetController} launch, drain and terminate instances through the provider; as the snapshots'
 * {@link FleetSnapshots.Overlay} it shows placement the instances still starting and the ones draining.
 *
 * <p>Of the servers of one database, only the one that holds the {@link Leadership} of the autoscaler runs a
 * controller; the others watch, and one of them takes over when the holder has been silent for
 * {@link #TAKEOVER_AFTER} (it was killed or paused; a stopping server hands over at once). A server that finds it
 * lost the leadership (it was paused past that time) stops launching and retires its instances: each is terminated
 * once its agent runs no task, and the server does not stand for leadership again until all are gone.
 *
 * <p>An instance the controller launched is known by its instance id; its agent registers under that name
 * ({@code gantry agent --name <instance id>}), so agents whose name is a managed instance's id stand for it here.
 * The names of all live agents go to the controller each round, so it never launches an instance under a name a live
 * agent has. The controller's state is in memory: a restarted server, or one that takes over, starts from the
 * minimum (the local provider's agents exit once their server is gone, and the controller terminates any the
 * provider finds left behind). Thread-safe.
 */
public final class Autoscaling implements FleetSnapshots.Overlay, AutoCloseable {
    /** What the operator chose: the fleet, and how to reach the provider once the server's URL is known. */
    public record Setup(FleetConfig config, Function<URI, FleetProvider> providerFor) {
        public Setup {
            Objects.requireNonNull(config, "config");
            Objects.requireNonNull(providerFor, "providerFor");
        }
    }

    static final Duration TICK_EVERY = Duration.ofSeconds(1);
    /** How long another server watches the leader's row stand still before it takes the autoscaler over. */
    public static final Duration TAKEOVER_AFTER = Duration.ofSeconds(10);
    static final String ROLE = "autoscaler";
    private static final Logger LOG = LoggerFactory.getLogger(Autoscaling.class);

    private final Setup setup;
    private final Jdbi jdbi;
    private final InstantSource clock;
    private final Leadership leadership;
    private final FleetEventLog events;
    private Instant prunedAt = Instant.MIN;
    private volatile FleetSnapshots snapshots;
    /** Non-null while this server leads. */
    private volatile FleetController controller;
    private volatile FleetProvider provider;
    /** The instances of a controller whose leadership was lost, still to be terminated once idle. */
    private final Set<String> retiring = ConcurrentHashMap.newKeySet();
    private Thread ticker;

    /** @param server this server's instance id, its name in the leadership row */
    public Autoscaling(Setup setup, Jdbi jdbi, InstantSource clock, String server) {
        this.setup = setup;
        this.jdbi = jdbi;
        this.clock = clock;
        this.leadership = new Leadership(jdbi, ROLE, server, TAKEOVER_AFTER, clock);
        this.events = new FleetEventLog(jdbi);
    }

    /**
     * Starts ticking, launching through the provider made for {@code server}: once this server leads, the minimum
     * fleet comes up at once.
     */
    public synchronized void start(FleetSnapshots fleet, URI server) {
        this.snapshots = fleet;
        this.provider = setup.providerFor().apply(server);
        ticker = Thread.ofPlatform().name("gantry-autoscaler").daemon().start(this::tickUntilInterrupted);
    }

    /** The server that led the autoscaler at the last look (this one if it leads), if any was seen. */
    public Optional<String> leader() {
        return controller != null ? Optional.of(leadership.self())
                : leadership.lastSeen().map(Leadership.Holder::holder);
    }

    /** Whether this server runs the autoscaler now. */
    public boolean leads() {
        return controller != null;
    }

    /** What the autoscaler did lately, whichever server led it, oldest first. */
    public List<FleetEvent> recentEvents() {
        return events.recent();
    }

    /** The instances the controller runs and their states, by id; empty before {@link #start}. */
    public Map<String, InstanceState> instances() {
        FleetController c = controller;
        return c == null ? Map.of() : c.instances();
    }

    @Override
    public Snapshot apply(Snapshot observed, Map<String, String> agentNames) {
        FleetController c = controller;
        if (c == null) {
            return observed;
        }
        Renamed renamed = Renamed.of(observed, agentNames, c.instances().keySet());
        return renamed.back(c.overlay(renamed.snapshot()));
    }

    private void tickUntilInterrupted() {
        while (!Thread.currentThread().isInterrupted()) {
            try {
                tick();
                Thread.sleep(TICK_EVERY);
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                // The database may be away; the fleet stays as it is until it is back.
                LOG.warn("fleet: this round failed, trying again in {}: {}", TICK_EVERY, e.toString());
                try {
                    Thread.sleep(TICK_EVERY);
                } catch (InterruptedException stop) {
                    return;
                }
            }
        }
    }

    private void tick() {
        boolean leads = leadership.look(retiring.isEmpty());
        FleetSnapshots.Observed observed = jdbi.inTransaction(h -> snapshots.observe(h, clock.instant()));
        FleetController c = controller;
        if (leads && c == null) {
            c = new FleetController(setup.config(), provider, new SplittableRandom());
            controller = c;
        } else if (!leads && c != null) {
            LOG.warn("fleet: another server took the autoscaler over; retiring this server's {} instances as they "
                    + "fall idle", c.instances().size());
            retiring.addAll(c.instances().keySet());
            controller = null;
            c = null;
        }
        retireIdle(observed);
        if (c == null) {
            return;
        }
        Snapshot byInstance = Renamed.of(observed.snapshot(), observed.agentNames(), c.instances().keySet())
                .snapshot();
        c.namesInUse(observed.agentNames().values());
        List<FleetEvent> done = c.tick(byInstance);
        done.forEach(event -> LOG.info("fleet: {}", event));
        keep(done);
    }

    /** Appends what the controller did to the event log, and once an hour drops the log's old rows. */
    private void keep(List<FleetEvent> done) {
        try {
            events.append(done, leadership.self());
            Instant now = clock.instant();
            if (now.isAfter(prunedAt.plus(Duration.ofHours(1)))) {
                events.prune(now);
                prunedAt = now;
            }
        } catch (RuntimeException e) {
            // The controller has acted already; its log lines above are the record this time.
            LOG.warn("fleet: could not keep {} events in the database: {}", done.size(), e.toString());
        }
    }

    /** Terminates each retiring instance whose agent runs nothing (or has not registered). */
    private void retireIdle(FleetSnapshots.Observed observed) {
        if (retiring.isEmpty()) {
            return;
        }
        Map<String, Instance> byName = new HashMap<>();
        for (Instance i : observed.snapshot().instances()) {
            String name = observed.agentNames().get(i.id());
            if (name != null) {
                byName.merge(name, i, (a, b) -> a.running().isEmpty() ? b : a); // a busy registration counts
            }
        }
        for (String id : List.copyOf(retiring)) {
            Instance agent = byName.get(id);
            if (agent == null || agent.running().isEmpty()) {
                provider.terminate(id);
                retiring.remove(id);
                LOG.info("fleet: retired {} (this server no longer leads the autoscaler)", id);
            }
        }
    }

    /** Stops ticking, hands the leadership over, and stops every instance the provider started. */
    @Override
    public synchronized void close() {
        if (ticker != null) {
            ticker.interrupt();
            try {
                ticker.join(TICK_EVERY.multipliedBy(5).toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            try {
                leadership.resign();
            } catch (RuntimeException e) {
                LOG.warn("fleet: could not hand the autoscaler over (another server takes it over after {} s): {}",
                        TAKEOVER_AFTER.toSeconds(), e.toString());
            }
        }
        if (provider instanceof AutoCloseable closeable) {
            try {
                closeable.close();
            } catch (Exception e) {
                LOG.warn("fleet: stopping the provider's instances failed: {}", e.toString());
            }
        }
    }

    /**
     * A snapshot whose agents that stand for managed instances carry the instance id (their name) instead of the
     * agent id, and the way back for whatever the controller makes of it.
     */
    private record Renamed(Snapshot snapshot, Map<String, String> agentIdOf) {
        static Renamed of(Snapshot observed, Map<String, String> agentNames, Set<String> managed) {
            Map<String, String> agentIdOf = new HashMap<>();
            List<Instance> instances = new ArrayList<>(observed.instances().size());
            for (Instance i : observed.instances()) {
                String name = agentNames.get(i.id());
                // One agent per instance id: a restarted agent's old registration is not the instance.
                if (name != null && managed.contains(name) && !agentIdOf.containsKey(name)) {
                    agentIdOf.put(name, i.id());
                    instances.add(new Instance(name, i.type(), i.pool(), i.state(), i.running(), i.readyAt()));
                } else {
                    instances.add(i);
                }
            }
            return new Renamed(new Snapshot(observed.pending(), instances, observed.limits(), observed.now()),
                    agentIdOf);
        }

        Snapshot back(Snapshot overlaid) {
            List<Instance> instances = new ArrayList<>(overlaid.instances().size());
            for (Instance i : overlaid.instances()) {
                String agentId = agentIdOf.get(i.id());
                instances.add(agentId == null ? i
                        : new Instance(agentId, i.type(), i.pool(), i.state(), i.running(), i.readyAt()));
            }
            return new Snapshot(overlaid.pending(), instances, overlaid.limits(), overlaid.now());
        }
    }
}
