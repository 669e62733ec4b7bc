package dev.gantry.scheduler.fleet;

import java.util.List;
import java.util.Objects;

/**
 * What {@link Autoscaler#plan} decided: instances to launch, instances to drain or terminate, and pending jobs that
 * no launch can help (with why). Each step carries a reason an operator can read.
 */
public record Plan(List<Launch> launches, List<ScaleIn> scaleIns, List<Unserved> unserved) {
    public Plan {
        launches = List.copyOf(launches);
        scaleIns = List.copyOf(scaleIns);
        unserved = List.copyOf(unserved);
    }

    /** Launch {@code count} instances of {@code type} in {@code cluster}. */
    public record Launch(String cluster, String type, int count, String reason) {
        public Launch {
            Objects.requireNonNull(cluster, "cluster");
            Objects.requireNonNull(type, "type");
            Objects.requireNonNull(reason, "reason");
            if (count < 1) {
                throw new IllegalArgumentException("a launch is of at least one instance, got " + count);
            }
        }
    }

    /** Drain an instance (it takes no new job) or terminate one that is draining and runs nothing. */
    public record ScaleIn(String instanceId, Action action, String reason) {
        public enum Action { DRAIN, TERMINATE }
    }

    /** A pending job that needs a new instance none of its pool's clusters can launch now. */
    public record Unserved(String jobId, String reason) {
    }

    public boolean isEmpty() {
        return launches.isEmpty() && scaleIns.isEmpty();
    }
}
