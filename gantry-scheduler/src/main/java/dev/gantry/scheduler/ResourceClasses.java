package dev.gantry.scheduler;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The table of resource classes jobs may name. {@link #defaults()} follows CircleCI's Docker classes; an operator's
 * configuration can replace it with {@link #of(List)}. Immutable.
 */
public final class ResourceClasses {
    /** Disk is not part of CircleCI's published table; we give each class 10 GB per vCPU so disk scales with size. */
    static final int DISK_GB_PER_VCPU = 10;

    private final Map<String, ResourceClass> byName;

    private ResourceClasses(Map<String, ResourceClass> byName) {
        this.byName = byName;
    }

    /**
     * CircleCI's Docker classes: vCPU and memory from their resource-class table, credits per minute from their
     * price list at the time of writing (small 5 … 2xlarge+ 100); disk is ours ({@value #DISK_GB_PER_VCPU} GB per
     * vCPU). Check credits against the current price list before billing on them.
     */
    public static ResourceClasses defaults() {
        return of(List.of(
                standard("small", 1, 5),
                standard("medium", 2, 10),
                standard("medium+", 3, 15),
                standard("large", 4, 20),
                standard("xlarge", 8, 40),
                standard("2xlarge", 16, 80),
                standard("2xlarge+", 20, 100)));
    }

    /** A table of the given classes; names must be unique. */
    public static ResourceClasses of(List<ResourceClass> classes) {
        Map<String, ResourceClass> byName = new LinkedHashMap<>();
        List<ResourceClass> sorted = new ArrayList<>(classes);
        sorted.sort(Comparator.comparingInt(ResourceClass::vcpu).thenComparing(ResourceClass::name));
        for (ResourceClass c : sorted) {
            if (byName.putIfAbsent(c.name(), c) != null) {
                throw new IllegalArgumentException("resource class '" + c.name() + "' is defined twice");
            }
        }
        if (byName.isEmpty()) {
            throw new IllegalArgumentException("at least one resource class is needed");
        }
        return new ResourceClasses(byName);
    }

    /**
     * The class named {@code name}; an unknown name is a configuration error whose message lists the known classes.
     */
    public ResourceClass get(String name) {
        ResourceClass c = byName.get(name);
        if (c == null) {
            throw new IllegalArgumentException("unknown resource class '" + name + "'; known classes: " + known());
        }
        return c;
    }

    /** The class named {@code name}, or empty when there is none. */
    public Optional<ResourceClass> find(String name) {
        return Optional.ofNullable(byName.get(name));
    }

    /** Every class, smallest first. */
    public List<ResourceClass> all() {
        return List.copyOf(byName.values());
    }

    /** The known names, smallest first, comma-separated, for messages. */
    public String known() {
        return byName.keySet().stream().collect(Collectors.joining(", "));
    }

    private static ResourceClass standard(String name, int vcpu, int creditsPerMinute) {
        // Every CircleCI Docker class has 2 GB of memory per vCPU.
        return new ResourceClass(name, vcpu, vcpu * 2048, vcpu * DISK_GB_PER_VCPU, creditsPerMinute);
    }
}
