package dev.gantry.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Scenario 4 of issue 6, {@code scenarios/failing-provider.yaml}: an external provider fails every call for six
 * hours. Run with the default seed under both policies; figures in docs/simulator.md.
 */
class FailingProviderScenarioTest {
    private static final Path SCENARIO = Path.of("..", "scenarios", "failing-provider.yaml");

    @Test
    void gantry_keeps_the_failing_provider_to_its_share_and_job_starts_unchanged_while_the_baseline_drains_the_pool()
            throws IOException {
        Scenario scenario = Simulator.read(SCENARIO);
        Result.PoolSummary gantry = Simulator.run(scenario, Simulator.DEFAULT_SEED, PolicyKind.GANTRY).pool()
                .orElseThrow();
        Result.PoolSummary baseline = Simulator.run(scenario, Simulator.DEFAULT_SEED, PolicyKind.BASELINE).pool()
                .orElseThrow();

        assertThat(destination(gantry, "ai-provider").maxShare()).as("at most 10 % of the shared pool")
                .isLessThanOrEqualTo(0.10);
        assertThat(gantry.startLatencyChange()).as("job-start latency moves by at most 10 %")
                .isBetween(-0.10, 0.10);
        assertThat(gantry.startP95During()).isLessThanOrEqualTo(1.10 * gantry.startP95Outside());
        for (String unrelated : new String[] {"agents", "slack", "webhooks"}) {
            assertThat(destination(gantry, unrelated).expired()).as(unrelated).isZero();
            assertThat(destination(gantry, unrelated).failed()).as(unrelated).isZero();
        }
        assertThat(destination(gantry, "ai-provider").shortCircuited()).as("the breaker spared the calls")
                .isPositive();

        assertThat(destination(baseline, "ai-provider").maxShare()).as("the pool drains").isEqualTo(1.0);
        assertThat(destination(baseline, "agents").failed()).as("jobs fail to start").isPositive();
        assertThat(destination(baseline, "slack").expired() + destination(baseline, "webhooks").expired())
                .as("unrelated calls fail waiting for a worker").isPositive();
        assertThat(baseline.startLatencyChange()).isGreaterThan(1);
    }

    private static Result.DestinationSummary destination(Result.PoolSummary pool, String name) {
        return pool.destinations().stream().filter(d -> d.name().equals(name)).findFirst().orElseThrow();
    }
}
