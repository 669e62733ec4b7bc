package dev.gantry.scheduler.fleet;

import dev.gantry.scheduler.InstanceType;
import java.util.Objects;

/**
 * One entry of a cluster's ranked list of instance types: the type (name and capacity) and what an hour of it costs,
 * in the operator's currency. The rank, not the cost, decides which type is asked for first; the cost is there for
 * reports and for the operator ranking the list.
 */
public record RankedType(InstanceType type, double costPerHour) {
    public RankedType {
        Objects.requireNonNull(type, "type");
        if (!(costPerHour >= 0)) {
            throw new IllegalArgumentException("instance type '" + type.name() + "' cannot cost " + costPerHour
                    + " per hour");
        }
    }

    public String name() {
        return type.name();
    }
}
