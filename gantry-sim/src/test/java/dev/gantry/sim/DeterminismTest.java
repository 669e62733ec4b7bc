package dev.gantry.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DeterminismTest {
    /** Small enough to run in a moment, busy enough to launch, fall back and scale in. */
    static final String SCENARIO = """
            name: small-burst
            run_for: 90m
            tick: 5s
            sample_every: 5m
            fleet:
              scale_in_after: 5m
              clusters:
                - name: east
                  min: 1
                  max: 8
                  types:
                    - {name: t16, vcpu: 16, memory_gb: 32, disk_gb: 160, cost_per_hour: 0.7}
                    - {name: t32, vcpu: 32, memory_gb: 64, disk_gb: 320, cost_per_hour: 1.3}
            cloud:
              latency: {median: 60s, p95: 2m}
              type_latency: [{type: t32, median: 90s, p95: 3m}]
              failure_probability: 0.05
              capacity: [{at: 10m, cluster: east, type: t16, limit: 2}, {at: 1h, cluster: east, type: t16, limit: none}]
            workloads:
              - class: medium
                arrivals: {process: poisson, per_hour: 120, diurnal_amplitude: 0.5, diurnal_peak: 1h}
                duration: {median: 5m, p95: 15m}
              - class: 2xlarge
                arrivals: {process: steady, per_hour: 10, spikes: [{from: 20m, until: 50m, per_hour: 30}]}
                duration: {median: 10m, p95: 20m}
            """;

    @Test
    void the_same_scenario_and_seed_give_byte_identical_reports(@TempDir Path dir) throws IOException {
        Scenario scenario = ScenarioReader.read("small-burst.yaml", SCENARIO);
        for (PolicyKind policy : PolicyKind.values()) {
            Result first = Simulator.run(scenario, 7, policy);
            Result second = Simulator.run(scenario, 7, policy);
            Report.write(first, dir.resolve("first-" + policy));
            Report.write(second, dir.resolve("second-" + policy));

            for (String file : new String[] {"summary.txt", "summary.json", "timeseries.csv", "fleet.csv",
                "events.txt", "wait-p95.svg", "backlog.svg", "fleet.svg"}) {
                assertThat(Files.readString(dir.resolve("second-" + policy).resolve(file)))
                        .as(policy + " " + file)
                        .isEqualTo(Files.readString(dir.resolve("first-" + policy).resolve(file)));
            }
            assertThat(first.events()).as("the run exercised the fleet").isNotEmpty();
        }
    }

    /**
     * The same, with a queue database that degrades and goes read-only, users who retrigger, retries, and a shared
     * pool of workers for calls out whose one endpoint fails, then hangs.
     */
    static final String WITH_DATABASE = SCENARIO + """
            database:
              writes_per_second: 2
              capped: [{from: 20m, until: 30m, writes_per_second: 0.05}]
              read_only: [{from: 30m, until: 45m}]
            clients: {timeout: 10s, retrigger: {after: 5m, times: 2}}
            gantry: {dispatch_per_second: 0.2}
            baseline: {retries: {attempts: 20, every: 2s}}
            outbound:
              workers: 4
              share: 0.25
              endpoints:
                - name: provider
                  calls_per_hour: 600
                  failing: [{from: 10m, until: 20m}]
                  hanging: [{from: 20m, until: 40m}]
                - {name: slack, calls_per_hour: 600}
            """;

    @Test
    void a_run_with_a_failing_database_is_byte_identical_too(@TempDir Path dir) throws IOException {
        Scenario scenario = ScenarioReader.read("with-database.yaml", WITH_DATABASE);
        for (PolicyKind policy : PolicyKind.values()) {
            Report.write(Simulator.run(scenario, 7, policy), dir.resolve("first-" + policy));
            Report.write(Simulator.run(scenario, 7, policy), dir.resolve("second-" + policy));

            for (String file : new String[] {"summary.txt", "summary.json", "timeseries.csv", "events.txt",
                "database.svg", "pool.svg"}) {
                assertThat(Files.readString(dir.resolve("second-" + policy).resolve(file)))
                        .as(policy + " " + file)
                        .isEqualTo(Files.readString(dir.resolve("first-" + policy).resolve(file)));
            }
            assertThat(Files.readString(dir.resolve("first-" + policy).resolve("summary.json")))
                    .contains("\"faults\": {\"triggers\": ", "\"attempts_per_request\": ", "\"drain_load_ratio\": ",
                            "\"pool\": {\"workers\": 4", "\"provider\": {\"calls\": ");
        }
    }

    @Test
    void another_seed_gives_another_run() {
        Scenario scenario = ScenarioReader.read("small-burst.yaml", SCENARIO);

        assertThat(Report.timeSeriesCsv(Simulator.run(scenario, 8, PolicyKind.GANTRY)))
                .isNotEqualTo(Report.timeSeriesCsv(Simulator.run(scenario, 7, PolicyKind.GANTRY)));
    }

    @Test
    void the_json_summary_has_the_figures_scripts_read() {
        Result r = Simulator.run(ScenarioReader.read("small-burst.yaml", SCENARIO), 7, PolicyKind.GANTRY);

        assertThat(Report.json(r)).contains("\"2xlarge\": {\"class\": \"2xlarge\", \"wait_p50_s\": ",
                "\"wait_p95_s\": ", "\"wait_p99_s\": ", "\"wait_max_s\": ", "\"jobs\": ", "\"instances_avg\": ",
                "\"cost\": ", "\"fleet\": {\"instances_avg\": ");
    }
}
