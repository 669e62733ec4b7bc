package dev.gantry.scheduler.fleet;

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
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Short ways to build fleets, snapshots and members in autoscaling tests. */
final class Fleets {
    static final Instant T0 = Instant.parse("2026-10-21T15:44:00Z");
    static final ResourceClasses CLASSES = ResourceClasses.defaults();
    static final ResourceClass SMALL = CLASSES.get("small");
    static final ResourceClass LARGE = CLASSES.get("large");
    static final ResourceClass XLARGE = CLASSES.get("xlarge");
    static final ResourceClass XXLARGE = CLASSES.get("2xlarge");
    static final RankedType T16 = type("t16", 16);
    static final RankedType T8 = type("t8", 8);

    private Fleets() {
    }

    /** A type shaped like the default classes: 2 GB memory and 10 GB disk per vCPU. */
    static RankedType type(String name, int vcpu) {
        return new RankedType(new InstanceType(name, new Resources(vcpu, vcpu * 2048, vcpu * 10)), vcpu * 0.05);
    }

    static Instant at(int minutes) {
        return T0.plus(Duration.ofMinutes(minutes));
    }

    static FleetConfig config(Cluster... clusters) {
        return new FleetConfig(List.of(clusters), Map.of(), Duration.ofMinutes(5), Duration.ofMinutes(3),
                Duration.ofMinutes(10));
    }

    static Cluster cluster(String name, int min, int max, RankedType... types) {
        return new Cluster(name, Instance.DEFAULT_POOL, List.of(types), min, max);
    }

    static PendingJob job(String id, ResourceClass c, int enqueuedMinute) {
        return new PendingJob(id, c, "org", at(enqueuedMinute));
    }

    static RunningJob running(String id, ResourceClass c) {
        return new RunningJob(id, c.demand(), "org", Optional.empty());
    }

    static Instance instance(String id, RankedType type, InstanceState state, RunningJob... running) {
        return new Instance(id, type.type(), Instance.DEFAULT_POOL, state, List.of(running),
                state == InstanceState.PROVISIONING ? Optional.of(at(2)) : Optional.empty());
    }

    static Snapshot snapshot(Instant now, List<Instance> instances, PendingJob... pending) {
        return new Snapshot(List.of(pending), instances, OrgLimits.NONE, now);
    }

    static Member member(String id, String cluster) {
        return new Member(id, cluster, T0, Optional.empty());
    }

    static Member idle(String id, String cluster, Instant since) {
        return new Member(id, cluster, T0, Optional.of(since));
    }
}
