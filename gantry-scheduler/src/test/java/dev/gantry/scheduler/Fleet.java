package dev.gantry.scheduler;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** Short ways to build snapshots in tests. */
final class Fleet {
    static final Instant T0 = Instant.parse("2026-10-21T12:00:00Z");
    static final ResourceClasses CLASSES = ResourceClasses.defaults();
    static final ResourceClass SMALL = CLASSES.get("small");
    static final ResourceClass MEDIUM = CLASSES.get("medium");
    static final ResourceClass LARGE = CLASSES.get("large");
    static final ResourceClass XLARGE = CLASSES.get("xlarge");
    /** Fits two xlarge jobs, or sixteen small ones. */
    static final InstanceType M16 = type("m16", 16);
    static final InstanceType M8 = type("m8", 8);

    private Fleet() {
    }

    /** A type shaped like the default classes: 2 GB memory and 10 GB disk per vCPU. */
    static InstanceType type(String name, int vcpu) {
        return new InstanceType(name, new Resources(vcpu, vcpu * 2048, vcpu * ResourceClasses.DISK_GB_PER_VCPU));
    }

    static Instant at(int minutes) {
        return T0.plus(Duration.ofMinutes(minutes));
    }

    static PendingJob job(String id, ResourceClass c, int enqueuedMinute) {
        return new PendingJob(id, c, "org", at(enqueuedMinute));
    }

    static RunningJob running(String id, ResourceClass c, int endsAtMinute) {
        return new RunningJob(id, c.demand(), "org", Optional.of(at(endsAtMinute)));
    }

    static RunningJob runningForever(String id, ResourceClass c) {
        return new RunningJob(id, c.demand(), "org", Optional.empty());
    }

    static Instance ready(String id, InstanceType type, RunningJob... running) {
        return Instance.ready(id, type, List.of(running));
    }

    static Snapshot snapshot(List<Instance> instances, PendingJob... pending) {
        return new Snapshot(List.of(pending), instances, OrgLimits.NONE, at(0));
    }
}
