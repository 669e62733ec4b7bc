package dev.gantry.bench.scheduler;

import ai.timefold.solver.core.api.domain.common.PlanningId;

/** An instance Timefold may put jobs on (a problem fact), with the fleet's capacity. Public for Timefold. */
public final class Bin {
    @PlanningId
    private final Integer index;
    private final int vcpu;
    private final int memoryMb;
    private final int diskGb;

    Bin(int index, int vcpu, int memoryMb, int diskGb) {
        this.index = index;
        this.vcpu = vcpu;
        this.memoryMb = memoryMb;
        this.diskGb = diskGb;
    }

    public Integer getIndex() {
        return index;
    }

    public int getVcpu() {
        return vcpu;
    }

    public int getMemoryMb() {
        return memoryMb;
    }

    public int getDiskGb() {
        return diskGb;
    }

    @Override
    public String toString() {
        return "bin-" + index;
    }
}
