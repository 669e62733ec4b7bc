package dev.gantry.sim;

import dev.gantry.scheduler.Decision;
import dev.gantry.scheduler.Snapshot;
import dev.gantry.scheduler.fleet.FleetConfig;
import dev.gantry.scheduler.fleet.FleetProvider;
import java.util.List;

/** The naive policies: {@link FifoFirstFit} placement and the {@link JobCountAutoscaler}. */
final class BaselinePolicy implements Policy {
    private final JobCountAutoscaler autoscaler;

    BaselinePolicy(FleetConfig fleet, FleetProvider provider, int jobsPerInstance) {
        this.autoscaler = new JobCountAutoscaler(fleet, provider, jobsPerInstance);
    }

    @Override
    public String name() {
        return "baseline";
    }

    /** The baseline knows nothing of instances still starting: placement sees the ready ones only. */
    @Override
    public Snapshot overlay(Snapshot observed) {
        return observed;
    }

    @Override
    public Decision place(Snapshot snapshot) {
        return FifoFirstFit.place(snapshot);
    }

    @Override
    public List<String> tick(Snapshot observed) {
        return autoscaler.tick(observed);
    }
}
