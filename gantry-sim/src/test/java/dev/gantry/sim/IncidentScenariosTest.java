package dev.gantry.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The scenarios shipped under {@code scenarios/}, each run under Gantry's policies and the baseline's with the default
 * seed, against the outcome the scenario promises. Figures are in docs/simulator.md.
 */
class IncidentScenariosTest {
    private static final Path SCENARIOS = Path.of("..", "scenarios");

    @Test
    void spike_2xlarge_keeps_the_largest_class_within_minutes_while_the_baseline_waits_tens_of_minutes()
            throws IOException {
        Scenario scenario = Simulator.read(SCENARIOS.resolve("spike-2xlarge.yaml"));
        Result gantry = Simulator.run(scenario, Simulator.DEFAULT_SEED, PolicyKind.GANTRY);
        Result baseline = Simulator.run(scenario, Simulator.DEFAULT_SEED, PolicyKind.BASELINE);

        assertThat(workload(gantry, "2xlarge").waitP95()).isLessThanOrEqualTo(180);
        assertThat(workload(gantry, "2xlarge").waitP99()).isLessThanOrEqualTo(300);
        assertThat(workload(gantry, "small").waitP95()).isLessThanOrEqualTo(30);
        assertThat(workload(gantry, "medium").waitP95()).isLessThanOrEqualTo(30);
        assertThat(workload(gantry, "2xlarge").stillWaiting()).isZero();

        assertThat(workload(baseline, "2xlarge").waitP95()).as("the incident's tens of minutes")
                .isGreaterThanOrEqualTo(20 * 60);
        assertThat(workload(baseline, "2xlarge").waitP95())
                .isGreaterThan(10 * workload(gantry, "2xlarge").waitP95());
    }

    @Test
    void image_shortage_makes_only_that_images_jobs_wait_and_gantry_falls_back_where_the_baseline_cannot()
            throws IOException {
        Scenario scenario = Simulator.read(SCENARIOS.resolve("image-shortage.yaml"));
        Result gantry = Simulator.run(scenario, Simulator.DEFAULT_SEED, PolicyKind.GANTRY);
        Result baseline = Simulator.run(scenario, Simulator.DEFAULT_SEED, PolicyKind.BASELINE);

        for (Result r : new Result[] {gantry, baseline}) {
            assertThat(workload(r, "xcode-26.4").waitP95()).as(r.policy()).isLessThanOrEqualTo(30);
            assertThat(workload(r, "xcode-27").waitP95()).as(r.policy()).isLessThanOrEqualTo(30);
            assertThat(workload(r, "xcode-26.6").waitMax()).as(r.policy() + ": the short image's jobs wait")
                    .isGreaterThan(60);
        }
        // Gantry's wait is a fallback host's provisioning; the baseline's grows with the backlog.
        assertThat(workload(gantry, "xcode-26.6").waitP99()).isLessThanOrEqualTo(300);
        assertThat(workload(baseline, "xcode-26.6").waitP95()).isGreaterThanOrEqualTo(15 * 60);
    }

    private static Result.WorkloadSummary workload(Result r, String name) {
        return r.workloads().stream().filter(w -> w.name().equals(name)).findFirst().orElseThrow();
    }
}
