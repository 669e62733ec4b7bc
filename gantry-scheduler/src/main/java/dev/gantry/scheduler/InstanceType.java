package dev.gantry.scheduler;

import java.util.Objects;

/** A kind of machine a provider can start (an EC2 type, a local agent size): its name and its capacity. */
public record InstanceType(String name, Resources capacity) {
    public InstanceType {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(capacity, "capacity");
        if (capacity.vcpu() == 0 || capacity.memoryMb() == 0 || capacity.diskGb() == 0) {
            throw new IllegalArgumentException("instance type '" + name + "' needs some of every resource, got "
                    + capacity);
        }
    }
}
