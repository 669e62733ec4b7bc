package dev.gantry.bench.scheduler;

import ai.timefold.solver.core.api.domain.solution.PlanningEntityCollectionProperty;
import ai.timefold.solver.core.api.domain.solution.PlanningScore;
import ai.timefold.solver.core.api.domain.solution.PlanningSolution;
import ai.timefold.solver.core.api.domain.solution.ProblemFactCollectionProperty;
import ai.timefold.solver.core.api.domain.valuerange.ValueRangeProvider;
import ai.timefold.solver.core.api.score.HardMediumSoftScore;
import java.util.List;

/**
 * The packing problem Timefold solves: every job on some bin. Hard: no bin over its vCPU, memory or disk (by how
 * much). Medium: the number of bins in use, the objective. Soft: the sum over bins of the squared vCPU in use, a
 * reward that only guides local search towards emptying lightly used bins (it never outweighs a bin). Public for
 * Timefold.
 */
@PlanningSolution
public final class BinPacking {
    @ProblemFactCollectionProperty
    @ValueRangeProvider
    private List<Bin> bins;
    @PlanningEntityCollectionProperty
    private List<PackedJob> jobs;
    @PlanningScore
    private HardMediumSoftScore score;

    /** For Timefold's cloner. */
    public BinPacking() {
    }

    BinPacking(List<Bin> bins, List<PackedJob> jobs) {
        this.bins = bins;
        this.jobs = jobs;
    }

    public List<Bin> getBins() {
        return bins;
    }

    public List<PackedJob> getJobs() {
        return jobs;
    }

    public HardMediumSoftScore getScore() {
        return score;
    }

    public void setScore(HardMediumSoftScore score) {
        this.score = score;
    }
}
