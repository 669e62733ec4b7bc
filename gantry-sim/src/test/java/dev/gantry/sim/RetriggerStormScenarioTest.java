package dev.gantry.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Scenario 5 of issue 6, {@code scenarios/retrigger-storm.yaml}: users retrigger what they do not see while the queue
 * database is slow, then read-only. Run with the default seed under both policies; figures in docs/simulator.md.
 */
class RetriggerStormScenarioTest {
    private static final Path SCENARIO = Path.of("..", "scenarios", "retrigger-storm.yaml");

    @Test
    void gantry_answers_every_retrigger_with_the_pipeline_it_made_while_the_baseline_runs_commits_twice()
            throws IOException {
        Scenario scenario = Simulator.read(SCENARIO);
        Result.FaultSummary gantry = Simulator.run(scenario, Simulator.DEFAULT_SEED, PolicyKind.GANTRY).faults()
                .orElseThrow();
        Result.FaultSummary baseline = Simulator.run(scenario, Simulator.DEFAULT_SEED, PolicyKind.BASELINE)
                .faults().orElseThrow();

        assertThat(gantry.retriggers()).as("users did retrigger").isPositive();
        assertThat(gantry.duplicates()).as("no duplicates").isZero();
        assertThat(gantry.deduplicated()).as("repeats answered with the existing pipeline").isPositive();
        assertThat(gantry.failedToStart()).isZero();
        assertThat(gantry.attemptsPerRequest()).isLessThanOrEqualTo(1.1);

        assertThat(baseline.retriggers()).isPositive();
        assertThat(baseline.duplicates()).as("the baseline runs commits twice").isGreaterThanOrEqualTo(100);
    }
}
