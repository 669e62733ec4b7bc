package dev.gantry.bench.scheduler;

import dev.gantry.scheduler.WaitReason;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * What the measured rounds of a {@link Churn} run gave.
 *
 * @param waitsByReason   the waiting verdicts of the measured rounds by reason (a job waiting ten rounds counts ten)
 * @param placeNanos      wall time spent inside {@code Placement.place}, summed over the measured rounds
 * @param decisionNanos   one value per measured round: the time of its {@code place} call
 * @param decisionCpuNanos the same calls' CPU time on their thread, which leaves out time the thread waited for a
 *                        core (on a shared machine, most of the tail of {@code decisionNanos})
 * @param gcCount         garbage collections during the measured rounds (any of them may land inside a decision)
 * @param gcMillis        their total time, as the JVM accounts it
 * @param meanRatio       the mean over measured rounds of instances in use ÷ the lower bound
 * @param snapshots       the running jobs at a few measured rounds, for the solver
 */
record ChurnFigures(int rounds, long placements, long waits, Map<WaitReason, Long> waitsByReason, long placeNanos,
                    Histogram decisionNanos, Histogram decisionCpuNanos, long gcCount, long gcMillis,
                    double meanRatio, double meanInUse, double meanLowerBound, double meanRunning, double meanPending,
                    List<PackingSnapshot> snapshots) {

    double placementsPerSecond() {
        return placements / (placeNanos / 1e9);
    }

    double decisionMs(double percentile) {
        return decisionNanos.getValueAtPercentile(percentile) / 1e6;
    }

    double decisionCpuMs(double percentile) {
        return decisionCpuNanos.getValueAtPercentile(percentile) / 1e6;
    }
}
