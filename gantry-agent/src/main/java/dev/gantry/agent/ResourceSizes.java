package dev.gantry.agent;

import dev.gantry.agent.protocol.Assignment;
import java.util.Map;

/**
 * CPU and memory a job takes, so the agent knows what it has left to offer in its next claim: what the assignment
 * says (the server's resource classes are configuration). The table of CircleCI's Docker classes here is only for an
 * older server that does not say; a class it does not know counts as {@link #DEFAULT}. Pure.
 */
final class ResourceSizes {
    static final String DEFAULT = "medium";

    record Size(int cpu, int memoryMb) {
    }

    /** The smallest class: with less than this free, no task can fit. */
    static final Size SMALLEST = new Size(1, 2048);

    private static final Map<String, Size> SIZES = Map.of(
            "small", SMALLEST,
            "medium", new Size(2, 4096),
            "medium+", new Size(3, 6144),
            "large", new Size(4, 8192),
            "xlarge", new Size(8, 16384),
            "2xlarge", new Size(16, 32768),
            "2xlarge+", new Size(20, 40960));

    private ResourceSizes() {
    }

    /** What {@code job} takes: the size its assignment gives, else (from an older server) its class's here. */
    static Size of(Assignment.Job job) {
        if (job.cpu() > 0 && job.memoryMb() > 0) {
            return new Size(job.cpu(), job.memoryMb());
        }
        Size size = SIZES.get(job.resourceClass() == null ? DEFAULT : job.resourceClass());
        return size != null ? size : SIZES.get(DEFAULT);
    }
}
