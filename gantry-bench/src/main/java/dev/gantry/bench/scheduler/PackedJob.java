package dev.gantry.bench.scheduler;

import ai.timefold.solver.core.api.domain.common.PlanningId;
import ai.timefold.solver.core.api.domain.entity.PlanningEntity;
import ai.timefold.solver.core.api.domain.variable.PlanningVariable;
import java.util.Comparator;

/** A running job of a snapshot as a Timefold planning entity: its bin is the variable. Public for Timefold. */
@PlanningEntity(comparatorClass = PackedJob.BySize.class)
public final class PackedJob {
    /** Smaller first: Timefold's first fit decreasing takes the largest first. */
    public static final class BySize implements Comparator<PackedJob> {
        @Override
        public int compare(PackedJob a, PackedJob b) {
            int c = Integer.compare(a.vcpu, b.vcpu);
            if (c == 0) {
                c = Integer.compare(a.memoryMb, b.memoryMb);
            }
            return c != 0 ? c : Integer.compare(a.id, b.id);
        }
    }

    @PlanningId
    private Integer id;
    private int vcpu;
    private int memoryMb;
    private int diskGb;
    @PlanningVariable
    private Bin bin;

    /** For Timefold's cloner. */
    public PackedJob() {
    }

    PackedJob(int id, int vcpu, int memoryMb, int diskGb) {
        this.id = id;
        this.vcpu = vcpu;
        this.memoryMb = memoryMb;
        this.diskGb = diskGb;
    }

    public Integer getId() {
        return id;
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

    public Bin getBin() {
        return bin;
    }

    public void setBin(Bin bin) {
        this.bin = bin;
    }
}
