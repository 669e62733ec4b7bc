package dev.gantry.server.fleet;

import dev.gantry.server.auth.ApiAuthentication;
import dev.gantry.scheduler.Instance;
import dev.gantry.scheduler.InstanceState;
import dev.gantry.scheduler.Resources;
import dev.gantry.scheduler.RunningJob;
import dev.gantry.scheduler.fleet.FleetEvent;
import dev.gantry.server.http.Json;
import io.javalin.http.Context;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.transaction.TransactionIsolationLevel;

/**
 * {@code GET /api/v2/insights/fleet}: the pools an operator paused, the instances placement sees now (live agents,
 * and with autoscaling the instances still starting or draining) grouped by pool and size with how busy they are,
 * whether the server autoscales, which server of the database leads the autoscaler, the instances it runs with their
 * states, and what the autoscaler did lately (launches, fallbacks past a short type, drains, terminations), oldest
 * first. The web UI's fleet page shows the same {@link Overview}. Thread-safe.
 */
public final class FleetInsights {
    /** An operator's pause of a pool. */
    public record Pause(String pool, Instant since, String reason) {
    }

    /**
     * The instances of one pool and one size: how many in each state, how many run a task ({@code busy}) or none
     * while ready ({@code idle}), and the vCPUs and memory their tasks hold of what the ready and draining ones have.
     */
    public record Shape(String pool, int vcpu, int memoryMb, int instances, int ready, int provisioning,
                        int draining, int busy, int idle, int tasks, int vcpuHeld, int vcpuTotal, long memoryHeldMb,
                        long memoryTotalMb) {
        /** Held vCPUs of the ready and draining instances' vCPUs, in percent; null when none is up. */
        public Double cpuUtilisation() {
            return vcpuTotal == 0 ? null : 100.0 * vcpuHeld / vcpuTotal;
        }

        public Double memoryUtilisation() {
            return memoryTotalMb == 0 ? null : 100.0 * memoryHeldMb / memoryTotalMb;
        }
    }

    /** One instance as placement sees it: {@code type} is the agent ({@code agent NAME}) or the fleet's type. */
    public record Machine(String id, String type, String pool, String state, int tasks, Resources capacity,
                          Resources held) {
    }

    /**
     * @param leader     the server (its instance id) that runs the autoscaler, as last seen; null if none was seen
     * @param thisServer whether that is the server answering
     * @param events     what this server's autoscaler did lately, oldest first (empty unless it leads)
     */
    public record Overview(Instant at, List<Shape> shapes, List<Machine> machines, List<Pause> pausedPools,
                           boolean autoscaling, String leader, boolean thisServer, List<FleetEvent> events) {
    }

    record InstanceJson(String id, String state) {
    }

    record EventJson(String at, String kind, String cluster, String type, String instanceId, String message) {
    }

    record PauseJson(String pool, String pausedAt, String reason) {
    }

    record ShapeJson(String pool, int vcpu, int memoryMb, int instances, int ready, int provisioning, int draining,
                     int busy, int idle, int tasks, int vcpuHeld, int vcpuTotal, long memoryHeldMb,
                     long memoryTotalMb) {
    }

    record FleetJson(List<PauseJson> pausedPools, List<ShapeJson> shapes, boolean autoscaling, String leader,
                     boolean thisServer, List<InstanceJson> instances, List<EventJson> events) {
    }

    private final Jdbi jdbi;
    private final FleetSnapshots snapshots;
    private final Autoscaling autoscaling;
    private final InstantSource clock;

    /** @param autoscaling null when the server does not autoscale */
    public FleetInsights(Jdbi jdbi, FleetSnapshots snapshots, Autoscaling autoscaling, InstantSource clock) {
        this.jdbi = jdbi;
        this.snapshots = snapshots;
        this.autoscaling = autoscaling;
        this.clock = clock;
    }

    public void get(Context ctx) {
        Overview fleet = read(clock.instant());
        List<PauseJson> paused = fleet.pausedPools().stream()
                .map(p -> new PauseJson(p.pool(), Json.time(p.since()), p.reason())).toList();
        List<ShapeJson> shapes = fleet.shapes().stream().map(s -> new ShapeJson(s.pool(), s.vcpu(), s.memoryMb(),
                s.instances(), s.ready(), s.provisioning(), s.draining(), s.busy(), s.idle(), s.tasks(), s.vcpuHeld(),
                s.vcpuTotal(), s.memoryHeldMb(), s.memoryTotalMb())).toList();
        // As on the page: every signed-in user sees the counts and the autoscaler's actions, a site admin also the
        // instances the autoscaler runs and which server leads it.
        boolean admin = ApiAuthentication.principal(ctx).siteAdmin();
        List<InstanceJson> instances = autoscaling == null || !admin ? List.of() : autoscaling.instances().entrySet()
                .stream().map(e -> new InstanceJson(e.getKey(), e.getValue().name().toLowerCase(Locale.ROOT)))
                .toList();
        List<EventJson> events = fleet.events().stream().map(FleetInsights::json).toList();
        Json.respond(ctx, 200, new FleetJson(paused, shapes, fleet.autoscaling(), admin ? fleet.leader() : null,
                fleet.thisServer(), instances, events));
    }

    /** The fleet at {@code now}: what placement sees, read in one transaction, and the autoscaler's state. */
    public Overview read(Instant now) {
        FleetSnapshots.Loaded loaded = jdbi.inTransaction(TransactionIsolationLevel.REPEATABLE_READ,
                h -> snapshots.load(h, now));
        List<Instance> instances = loaded.snapshot().instances();
        List<Machine> machines = instances.stream()
                .sorted(Comparator.comparing(Instance::pool).thenComparing(i -> i.type().name())
                        .thenComparing(Instance::id))
                .map(i -> new Machine(i.id(), i.type().name(), i.pool(), i.state().name().toLowerCase(Locale.ROOT),
                        i.running().size(), i.type().capacity(), held(i)))
                .toList();
        List<Pause> paused = loaded.pauses().values().stream()
                .sorted(Comparator.comparing(FleetDao.PoolPause::pool))
                .map(p -> new Pause(p.pool(), p.pausedAt(), p.reason())).toList();
        if (autoscaling == null) {
            return new Overview(now, shapes(instances), machines, paused, false, null, false, List.of());
        }
        return new Overview(now, shapes(instances), machines, paused, true, autoscaling.leader().orElse(null),
                autoscaling.leads(), autoscaling.recentEvents());
    }

    /** The instances by pool, then by vCPUs and memory. */
    static List<Shape> shapes(List<Instance> instances) {
        record Key(String pool, int vcpu, int memoryMb) {
        }
        Map<Key, List<Instance>> groups = new TreeMap<>(Comparator.comparing(Key::pool)
                .thenComparingInt(Key::vcpu).thenComparingInt(Key::memoryMb));
        for (Instance i : instances) {
            Resources c = i.type().capacity();
            groups.computeIfAbsent(new Key(i.pool(), c.vcpu(), c.memoryMb()), k -> new ArrayList<>()).add(i);
        }
        List<Shape> shapes = new ArrayList<>();
        groups.forEach((key, group) -> {
            int ready = 0;
            int provisioning = 0;
            int draining = 0;
            int busy = 0;
            int idle = 0;
            int tasks = 0;
            int vcpuHeld = 0;
            int vcpuTotal = 0;
            long memoryHeld = 0;
            long memoryTotal = 0;
            for (Instance i : group) {
                switch (i.state()) {
                    case READY -> ready++;
                    case PROVISIONING -> provisioning++;
                    case DRAINING -> draining++;
                }
                tasks += i.running().size();
                if (!i.running().isEmpty()) {
                    busy++;
                } else if (i.state() == InstanceState.READY) {
                    idle++;
                }
                if (i.state() != InstanceState.PROVISIONING) { // one still starting has nothing to use yet
                    Resources held = held(i);
                    vcpuHeld += held.vcpu();
                    vcpuTotal += i.type().capacity().vcpu();
                    memoryHeld += held.memoryMb();
                    memoryTotal += i.type().capacity().memoryMb();
                }
            }
            shapes.add(new Shape(key.pool(), key.vcpu(), key.memoryMb(), group.size(), ready, provisioning, draining,
                    busy, idle, tasks, vcpuHeld, vcpuTotal, memoryHeld, memoryTotal));
        });
        return shapes;
    }

    private static Resources held(Instance i) {
        return i.running().stream().map(RunningJob::holds).reduce(Resources.NONE, Resources::plus);
    }

    private static EventJson json(FleetEvent e) {
        return new EventJson(Json.time(e.at()), e.kind().name().toLowerCase(Locale.ROOT), e.cluster(), e.type(),
                e.instanceId().isEmpty() ? null : e.instanceId(), e.message());
    }
}
