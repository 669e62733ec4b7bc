package dev.gantry.scheduler.fleet;

import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A group of instances started the same way (a region, a local machine, a Kubernetes node pool) that serves one pool
 * of jobs. Its types are ranked: the autoscaler asks for the first one that is available and big enough, and falls
 * back down the list. It never has fewer than {@code min} instances up or starting, nor more than {@code max}.
 */
public record Cluster(String name, String pool, List<RankedType> types, int min, int max) {
    public Cluster {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(pool, "pool");
        types = List.copyOf(types);
        if (types.isEmpty()) {
            throw new IllegalArgumentException("cluster '" + name + "' needs at least one instance type");
        }
        if (min < 0 || max < 1 || min > max) {
            throw new IllegalArgumentException("cluster '" + name + "' needs 0 <= min <= max and max >= 1, got min "
                    + min + ", max " + max);
        }
        var names = new HashSet<String>();
        for (RankedType t : types) {
            if (!names.add(t.name())) {
                throw new IllegalArgumentException("cluster '" + name + "' lists instance type '" + t.name()
                        + "' twice");
            }
        }
    }

    /** The type called {@code typeName} in this cluster's list. */
    public Optional<RankedType> type(String typeName) {
        return types.stream().filter(t -> t.name().equals(typeName)).findFirst();
    }
}
