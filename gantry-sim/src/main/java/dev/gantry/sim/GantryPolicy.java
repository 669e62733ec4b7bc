package dev.gantry.sim;

import dev.gantry.scheduler.Decision;
import dev.gantry.scheduler.Placement;
import dev.gantry.scheduler.Snapshot;
import dev.gantry.scheduler.fleet.FleetConfig;
import dev.gantry.scheduler.fleet.FleetController;
import dev.gantry.scheduler.fleet.FleetProvider;
import java.util.List;
import java.util.random.RandomGenerator;

/** Gantry's policies, exactly as the server runs them: {@link Placement#place} and a {@link FleetController}. */
final class GantryPolicy implements Policy {
    private final FleetController controller;

    GantryPolicy(FleetConfig fleet, FleetProvider provider, RandomGenerator random) {
        this.controller = new FleetController(fleet, provider, random);
    }

    @Override
    public String name() {
        return "gantry";
    }

    @Override
    public Snapshot overlay(Snapshot observed) {
        return controller.overlay(observed);
    }

    @Override
    public Decision place(Snapshot snapshot) {
        return Placement.place(snapshot);
    }

    @Override
    public List<String> tick(Snapshot observed) {
        return controller.tick(observed).stream()
                .map(e -> e.kind() + " " + e.cluster() + " " + e.type()
                        + (e.instanceId().isEmpty() ? "" : " " + e.instanceId()) + ": " + e.message())
                .toList();
    }
}
