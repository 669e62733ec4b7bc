package dev.gantry.server.run;

import java.util.Optional;

/**
 * The resource classes jobs may name: the scheduler's table ({@link dev.gantry.scheduler.ResourceClasses#defaults()},
 * CircleCI's Docker classes). Machine and macOS jobs use the same names.
 */
public final class ResourceClasses {
    /** The class of a job that names none. */
    public static final String DEFAULT = "medium";

    /** The table every server uses. */
    public static final dev.gantry.scheduler.ResourceClasses TABLE = dev.gantry.scheduler.ResourceClasses.defaults();

    /** CPU and memory a job of one class needs. */
    public record Size(int cpu, int memoryMb) {
    }

    private ResourceClasses() {
    }

    /** The size of {@code resourceClass} (null means {@link #DEFAULT}), or empty if there is no such class. */
    public static Optional<Size> size(String resourceClass) {
        return TABLE.find(resourceClass == null ? DEFAULT : resourceClass).map(c -> new Size(c.vcpu(), c.memoryMb()));
    }

    /** The known class names, smallest first, for error messages. */
    public static String known() {
        return TABLE.known();
    }
}
