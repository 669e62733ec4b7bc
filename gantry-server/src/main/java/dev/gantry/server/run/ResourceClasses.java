package dev.gantry.server.run;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * What each resource class asks of an agent, after CircleCI's Docker classes. Issue 5's fleet makes this
 * configuration; until then it is this table. Machine and macOS jobs use the same names.
 */
public final class ResourceClasses {
    /** The class of a job that names none. */
    public static final String DEFAULT = "medium";

    /** CPU and memory a job of one class needs. */
    public record Size(int cpu, int memoryMb) {
    }

    private static final Map<String, Size> SIZES = sizes();

    private ResourceClasses() {
    }

    private static Map<String, Size> sizes() {
        Map<String, Size> sizes = new LinkedHashMap<>();
        sizes.put("small", new Size(1, 2048));
        sizes.put("medium", new Size(2, 4096));
        sizes.put("medium+", new Size(3, 6144));
        sizes.put("large", new Size(4, 8192));
        sizes.put("xlarge", new Size(8, 16384));
        sizes.put("2xlarge", new Size(16, 32768));
        sizes.put("2xlarge+", new Size(20, 40960));
        return Map.copyOf(sizes);
    }

    /** The size of {@code resourceClass} (null means {@link #DEFAULT}), or empty if there is no such class. */
    public static Optional<Size> size(String resourceClass) {
        return Optional.ofNullable(SIZES.get(resourceClass == null ? DEFAULT : resourceClass));
    }

    /** The known class names, smallest first, for error messages. */
    public static String known() {
        return "small, medium, medium+, large, xlarge, 2xlarge, 2xlarge+";
    }
}
