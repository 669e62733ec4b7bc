package dev.gantry.scheduler;

import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Everything placement looks at, frozen at one moment: the pending jobs, the instances with what they run, the
 * organisations' limits and the time. {@code now} is injected; placement never reads a clock.
 */
public record Snapshot(List<PendingJob> pending, List<Instance> instances, OrgLimits limits, Instant now) {
    public Snapshot {
        pending = List.copyOf(pending);
        instances = List.copyOf(instances);
        Objects.requireNonNull(limits, "limits");
        Objects.requireNonNull(now, "now");
        requireUnique("pending job", pending.stream().map(PendingJob::id).toList());
        requireUnique("instance", instances.stream().map(Instance::id).toList());
    }

    private static void requireUnique(String what, List<String> ids) {
        Set<String> seen = new HashSet<>();
        for (String id : ids) {
            if (!seen.add(id)) {
                throw new IllegalArgumentException(what + " " + id + " appears twice in the snapshot");
            }
        }
    }
}
