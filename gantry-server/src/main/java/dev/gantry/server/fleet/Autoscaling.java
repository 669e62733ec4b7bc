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
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Function;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The autoscaler in the server: once a second it reads what the database shows (queued tasks, live agents) and lets
 * the {@link FleetController} launch, drain and terminate instances through the provider; as the snapshots'
 * {@link FleetSnapshots.Overlay} it shows placement the instances still starting and the ones draining.
 *
 * <p>An instance the controller launched is known by its instance id; its agent registers under that name
 * ({@code gantry agent --name <instance id>}), so agents whose name is a managed instance's id stand for it here.
 * The names of all live agents go to the controller each round, so it never launches an instance under a name a live
 * agent has. The controller's state is in memory: a restarted server forgets what it launched (the local provider's
 * agents exit once their server is gone, and the controller terminates any the provider finds left behind) and
 * starts again from the minimum. Thread-safe.
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
    private static final Logger LOG = LoggerFactory.getLogger(Autoscaling.class);

    private final Setup setup;
    private final Jdbi jdbi;
    private final InstantSource clock;
    private volatile FleetSnapshots snapshots;
    private volatile FleetController controller;
    private volatile FleetProvider provider;
    private Thread ticker;

    public Autoscaling(Setup setup, Jdbi jdbi, InstantSource clock) {
        this.setup = setup;
        this.jdbi = jdbi;
        this.clock = clock;
    }

    /** Starts ticking, launching through the provider made for {@code server}: the minimum fleet comes up at once. */
    public synchronized void start(FleetSnapshots fleet, URI server) {
        this.snapshots = fleet;
        this.provider = setup.providerFor().apply(server);
        this.controller = new FleetController(setup.config(), provider, new SplittableRandom());
        ticker = Thread.ofPlatform().name("gantry-autoscaler").daemon().start(this::tickUntilInterrupted);
    }

    /** What the controller did lately, oldest first; empty before {@link #start}. */
    public List<FleetEvent> recentEvents() {
        FleetController c = controller;
        return c == null ? List.of() : c.recentEvents();
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
                FleetSnapshots.Observed observed = jdbi.inTransaction(h -> snapshots.observe(h, clock.instant()));
                Snapshot byInstance = Renamed.of(observed.snapshot(), observed.agentNames(),
                        controller.instances().keySet()).snapshot();
                controller.namesInUse(observed.agentNames().values());
                for (FleetEvent event : controller.tick(byInstance)) {
                    LOG.info("fleet: {}", event);
                }
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

    /** Stops ticking and every instance the provider started. */
    @Override
    public synchronized void close() {
        if (ticker != null) {
            ticker.interrupt();
            try {
                ticker.join(TICK_EVERY.multipliedBy(5).toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
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
