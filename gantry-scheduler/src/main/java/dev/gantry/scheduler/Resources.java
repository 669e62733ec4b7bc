package dev.gantry.scheduler;

import java.util.Comparator;

/**
 * An amount of the three resources the scheduler packs: virtual CPUs, memory and disk. Used both for what a job
 * demands and for what an instance has (its capacity, or what is free on it). Never negative.
 */
public record Resources(int vcpu, int memoryMb, int diskGb) {
    public static final Resources NONE = new Resources(0, 0, 0);
    /** Fewer vCPUs first, then less memory, then less disk. */
    public static final Comparator<Resources> SMALLEST_FIRST = Comparator.comparingInt(Resources::vcpu)
            .thenComparingInt(Resources::memoryMb).thenComparingInt(Resources::diskGb);

    public Resources {
        if (vcpu < 0 || memoryMb < 0 || diskGb < 0) {
            throw new IllegalArgumentException("resources cannot be negative: " + describe(vcpu, memoryMb, diskGb));
        }
    }

    /** True when every dimension of {@code demand} is at most this one's. */
    public boolean fits(Resources demand) {
        return demand.vcpu <= vcpu && demand.memoryMb <= memoryMb && demand.diskGb <= diskGb;
    }

    public Resources plus(Resources other) {
        return new Resources(vcpu + other.vcpu, memoryMb + other.memoryMb, diskGb + other.diskGb);
    }

    /** This minus {@code other}; throws if any dimension would go negative, which would mean an over-committed instance. */
    public Resources minus(Resources other) {
        return new Resources(vcpu - other.vcpu, memoryMb - other.memoryMb, diskGb - other.diskGb);
    }

    @Override
    public String toString() {
        return describe(vcpu, memoryMb, diskGb);
    }

    private static String describe(int vcpu, int memoryMb, int diskGb) {
        return vcpu + " vCPU / " + memoryMb + " MB / " + diskGb + " GB";
    }
}
