package dev.gantry.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Scenario 3 of issue 6, {@code scenarios/queue-db-readonly.yaml}: the queue database degrades, then is read-only
 * for an hour. Run with the default seed under both policies; figures in docs/simulator.md.
 */
class QueueDatabaseScenarioTest {
    private static final Path SCENARIO = Path.of("..", "scenarios", "queue-db-readonly.yaml");

    @Test
    void gantry_pauses_itself_loses_nothing_drains_gently_and_makes_no_storm_while_the_baseline_storms()
            throws IOException {
        Scenario scenario = Simulator.read(SCENARIO);
        Result gantry = Simulator.run(scenario, Simulator.DEFAULT_SEED, PolicyKind.GANTRY);
        Result baseline = Simulator.run(scenario, Simulator.DEFAULT_SEED, PolicyKind.BASELINE);
        Result.FaultSummary g = gantry.faults().orElseThrow();
        Result.FaultSummary b = baseline.faults().orElseThrow();
        Result.WorkloadSummary gJobs = gantry.workloads().getFirst();
        Result.WorkloadSummary bJobs = baseline.workloads().getFirst();

        assertThat(g.failedToStart()).as("no accepted pipeline lost").isZero();
        assertThat(g.duplicates()).isZero();
        assertThat(g.pauses()).as("dispatch paused by itself").isPositive();
        assertThat(gantry.events()).anyMatch(e -> e.contains("RESUMED dispatch: ramping"));
        assertThat(gantry.events().getLast()).as("and ended resumed").contains("RESUMED");
        assertThat(g.drainLoadRatio()).as("backlog drained at most at 1.5x the normal load").isLessThanOrEqualTo(1.5);
        assertThat(g.attemptsPerRequest()).as("no retry storm").isLessThanOrEqualTo(1.1);
        assertThat(g.queuedAtEnd()).as("the backlog drained before the end").isZero();

        assertThat(b.attemptsPerRequest()).as("the baseline's storm").isGreaterThan(10);
        assertThat(b.drainLoadRatio()).isGreaterThan(10);
        assertThat(b.failedToStart() + b.duplicates()).as("jobs lost or run twice").isPositive();
        assertThat(bJobs.waitP95()).as("hours of delay").isGreaterThanOrEqualTo(2 * 3600)
                .isGreaterThan(gJobs.waitP95());
    }
}
