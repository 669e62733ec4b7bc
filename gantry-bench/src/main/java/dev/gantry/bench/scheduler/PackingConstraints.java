package dev.gantry.bench.scheduler;

import static ai.timefold.solver.core.api.score.stream.ConstraintCollectors.sum;

import ai.timefold.solver.core.api.score.HardMediumSoftScore;
import ai.timefold.solver.core.api.score.stream.Constraint;
import ai.timefold.solver.core.api.score.stream.ConstraintFactory;
import ai.timefold.solver.core.api.score.stream.ConstraintProvider;

/** The constraints of {@link BinPacking}. Public for Timefold. */
public final class PackingConstraints implements ConstraintProvider {
    @Override
    public Constraint[] defineConstraints(ConstraintFactory factory) {
        return new Constraint[] {
                factory.forEach(PackedJob.class)
                        .groupBy(PackedJob::getBin, sum(PackedJob::getVcpu))
                        .filter((bin, used) -> used > bin.getVcpu())
                        .penalize(HardMediumSoftScore.ONE_HARD, (bin, used) -> used - bin.getVcpu())
                        .asConstraint("vCPU over capacity"),
                factory.forEach(PackedJob.class)
                        .groupBy(PackedJob::getBin, sum(PackedJob::getMemoryMb))
                        .filter((bin, used) -> used > bin.getMemoryMb())
                        .penalize(HardMediumSoftScore.ONE_HARD, (bin, used) -> used - bin.getMemoryMb())
                        .asConstraint("memory over capacity"),
                factory.forEach(PackedJob.class)
                        .groupBy(PackedJob::getBin, sum(PackedJob::getDiskGb))
                        .filter((bin, used) -> used > bin.getDiskGb())
                        .penalize(HardMediumSoftScore.ONE_HARD, (bin, used) -> used - bin.getDiskGb())
                        .asConstraint("disk over capacity"),
                factory.forEach(PackedJob.class)
                        .groupBy(PackedJob::getBin, sum(PackedJob::getVcpu))
                        .penalize(HardMediumSoftScore.ONE_MEDIUM)
                        .asConstraint("instances in use"),
                factory.forEach(PackedJob.class)
                        .groupBy(PackedJob::getBin, sum(PackedJob::getVcpu))
                        .reward(HardMediumSoftScore.ONE_SOFT, (bin, used) -> used * used)
                        .asConstraint("fill instances unevenly"),
        };
    }
}
