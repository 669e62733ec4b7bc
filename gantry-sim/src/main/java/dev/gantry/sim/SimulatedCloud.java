package dev.gantry.sim;

import dev.gantry.scheduler.InstanceType;
import dev.gantry.scheduler.fleet.FleetProvider;
import dev.gantry.scheduler.fleet.SimulatedProvider;
import dev.gantry.scheduler.fleet.SimulatedProvider.Machine;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The scenario's cloud: one {@link SimulatedProvider} (the class the scheduler's tests use) per instance type, so each
 * type has its own provisioning latency, behind the one {@link FleetProvider} a fleet controller talks to.
 * Not thread-safe: one simulation drives it.
 */
final class SimulatedCloud implements FleetProvider {
    private static final Comparator<Machine> LAUNCH_ORDER =
            Comparator.comparing(Machine::launchedAt).thenComparing(Machine::id);

    private final Map<String, SimulatedProvider> byType = new LinkedHashMap<>();

    SimulatedCloud(Scenario scenario, InstantSource clock, SplittableRandom random) {
        // Types in fleet order, each seeded from the run's generator: the same scenario and seed, the same draws.
        scenario.fleet().clusters().forEach(c -> c.types().forEach(t -> byType.computeIfAbsent(t.name(), name -> {
            Scenario.Spread latency = scenario.cloud().latencyOf(name);
            return new SimulatedProvider(clock, random.nextLong(), latency.median(), latency.p95(),
                    scenario.cloud().failureProbability());
        })));
    }

    /** Applies a capacity change of the scenario. */
    void apply(Scenario.CapacityChange change) {
        SimulatedProvider p = byType.get(change.type());
        if (change.limit().isPresent()) {
            p.setCapacity(change.cluster(), change.type(), change.limit().getAsInt());
        } else {
            p.clearCapacity(change.cluster(), change.type());
        }
    }

    @Override
    public LaunchResult launch(String cluster, InstanceType type, String instanceId) {
        return byType.get(type.name()).launch(cluster, type, instanceId);
    }

    @Override
    public void terminate(String instanceId) {
        byType.values().forEach(p -> p.terminate(instanceId));
    }

    /** Instances up at {@code now}, in launch order. */
    List<Machine> readyBy(Instant now) {
        List<Machine> out = new ArrayList<>();
        byType.values().forEach(p -> out.addAll(p.readyBy(now)));
        out.sort(LAUNCH_ORDER);
        return out;
    }

    /** Every instance launched and not terminated, up or provisioning, in launch order: what is paid for. */
    List<Machine> machines() {
        List<Machine> out = new ArrayList<>();
        byType.values().forEach(p -> out.addAll(p.machines()));
        out.sort(LAUNCH_ORDER);
        return out;
    }
}
