package dev.gantry.agent;

import java.util.Map;

/**
 * CPU and memory each resource class takes, so the agent knows what it has left to offer in its next claim. Mirrors
 * the server's table (dev.gantry.server.run.ResourceClasses), which the agent must not depend on; a class it does not
 * know counts as {@link #DEFAULT}. Pure.
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

    static Size of(String resourceClass) {
        Size size = SIZES.get(resourceClass == null ? DEFAULT : resourceClass);
        return size != null ? size : SIZES.get(DEFAULT);
    }
}
