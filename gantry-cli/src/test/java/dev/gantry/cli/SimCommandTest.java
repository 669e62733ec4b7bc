package dev.gantry.cli;

import static dev.gantry.cli.CliTest.gantry;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code gantry sim} in-process, on a scenario small enough to run in a moment. */
class SimCommandTest {
    private static final String SCENARIO = """
            name: tiny
            run_for: 30m
            fleet:
              clusters:
                - {name: east, min: 1, max: 4, types: [{name: t16, vcpu: 16, memory_gb: 32, disk_gb: 160}]}
            workloads:
              - {class: medium, arrivals: {per_hour: 60}, duration: {median: 5m, p95: 10m}}
            """;

    @TempDir
    Path dir;

    @Test
    void prints_the_summary_table_and_writes_reports_with_compare() throws IOException {
        Path scenario = Files.writeString(dir.resolve("tiny.yaml"), SCENARIO);

        CliTest.Run run = gantry("sim", scenario.toString(), "--compare", "baseline", "--out",
                dir.resolve("out").toString(), "--seed", "3");

        assertThat(run.code()).as(run.err()).isZero();
        assertThat(run.out()).startsWith("scenario tiny, seed 3, 0.5h virtual: gantry vs baseline").contains("medium");
        assertThat(dir.resolve("out/gantry/timeseries.csv")).exists();
        assertThat(dir.resolve("out/baseline/fleet.svg")).exists();
    }

    @Test
    void json_prints_the_figures_for_scripts() throws IOException {
        Path scenario = Files.writeString(dir.resolve("tiny.yaml"), SCENARIO);

        CliTest.Run run = gantry("sim", scenario.toString(), "--json");

        assertThat(run.code()).as(run.err()).isZero();
        assertThat(run.out()).startsWith("{\"scenario\": \"tiny\"").contains("\"wait_p95_s\": ");
    }

    @Test
    void a_broken_scenario_is_reported_at_its_line_and_column() throws IOException {
        Path scenario = Files.writeString(dir.resolve("broken.yaml"), SCENARIO.replace("run_for: 30m", "run_for: 30"));

        CliTest.Run run = gantry("sim", scenario.toString());

        assertThat(run.code()).isEqualTo(1);
        assertThat(run.err()).startsWith(scenario + ":2:10: error: a duration is");
    }
}
