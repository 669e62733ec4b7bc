package dev.gantry.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gantry.scheduler.fleet.FleetConfigException.Problem;
import java.time.Duration;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class ScenarioReaderTest {
    @Test
    void reads_the_fleet_cloud_workloads_and_durations() {
        Scenario s = ScenarioReader.read("small-burst.yaml", DeterminismTest.SCENARIO);

        assertThat(s.name()).isEqualTo("small-burst");
        assertThat(s.runFor()).isEqualTo(Duration.ofMinutes(90));
        assertThat(s.fleet().cluster("east").orElseThrow().types()).hasSize(2);
        assertThat(s.cloud().latencyOf("t32")).isEqualTo(new Scenario.Spread(Duration.ofSeconds(90),
                Duration.ofMinutes(3)));
        assertThat(s.cloud().latencyOf("t16").median()).isEqualTo(Duration.ofSeconds(60));
        assertThat(s.cloud().capacity()).containsExactly(
                new Scenario.CapacityChange(Duration.ofMinutes(10), "east", "t16", OptionalInt.of(2)),
                new Scenario.CapacityChange(Duration.ofHours(1), "east", "t16", OptionalInt.empty()));
        Scenario.Workload big = s.workloads().get(1);
        assertThat(big.name()).isEqualTo("2xlarge");
        assertThat(big.pool()).isEqualTo("default");
        assertThat(big.arrivals().rateAt(Duration.ofMinutes(30))).isEqualTo(40);
        assertThat(big.arrivals().rateAt(Duration.ofMinutes(50))).isEqualTo(10);
        assertThat(s.baseline().jobsPerInstance()).isEqualTo(Scenario.Baseline.DEFAULT_JOBS_PER_INSTANCE);
    }

    @Test
    void an_image_runs_in_the_pool_its_pin_names() {
        Scenario s = ScenarioReader.read("s.yaml", """
                name: pins
                run_for: 1h
                fleet:
                  clusters:
                    - {name: linux, max: 2, types: [{name: t8, vcpu: 8, memory_gb: 16, disk_gb: 80}]}
                    - {name: mac, pool: macos, max: 2, types: [{name: m4, vcpu: 8, memory_gb: 16, disk_gb: 200}]}
                  pins: {"xcode:*": macos}
                workloads:
                  - {class: large, image: "xcode:26.6", arrivals: {per_hour: 1}, duration: {median: 1m}}
                """);

        assertThat(s.workloads().getFirst().pool()).isEqualTo("macos");
        assertThat(s.workloads().getFirst().arrivals().kind()).isEqualTo(Scenario.Arrivals.Kind.POISSON);
    }

    /** A capacity change is checked against the fleet only once the fleet itself is valid. */
    @Test
    void every_problem_is_reported_with_its_file_line_and_column_fleet_section_included() {
        String text = """
                name: broken
                run_for: 8 hours
                fleet:
                  clusters:
                    - {name: east, max: 2, types: [{name: t8, vcpu: 8, memory_gb: 16, disk_gb: 80}]}
                  colour: blue
                cloud:
                  capacity: [{at: 1h, cluster: east, type: t99, limit: 1}]
                workloads:
                  - class: huge
                    arrivals: {per_hour: 1}
                    duration: {median: 5m, p95: 1m}
                """;

        assertThatThrownBy(() -> ScenarioReader.read("broken.yaml", text))
                .isInstanceOfSatisfying(ScenarioException.class, e -> assertThat(e.problems())
                        .extracting(Problem::file, Problem::line, Problem::column)
                        .containsExactly(
                                tuple("broken.yaml", 2, 10),
                                tuple("broken.yaml", 6, 3),
                                tuple("broken.yaml", 10, 12),
                                tuple("broken.yaml", 12, 33)));
    }

    @Test
    void reads_the_database_clients_outbound_pool_and_both_policies_settings() {
        Scenario s = ScenarioReader.read("faults.yaml", DeterminismTest.WITH_DATABASE);
        Resilience r = s.resilience();

        assertThat(r.database().orElseThrow().capacityAt(Duration.ZERO)).isEqualTo(2);
        assertThat(r.database().orElseThrow().capacityAt(Duration.ofMinutes(25))).isEqualTo(0.05);
        assertThat(r.database().orElseThrow().capacityAt(Duration.ofMinutes(30))).isZero();
        assertThat(r.database().orElseThrow().recoveredAt()).isEqualTo(Duration.ofMinutes(45));
        assertThat(r.clients().retrigger()).contains(new Resilience.Retrigger(Duration.ofMinutes(5), 2));
        assertThat(r.gantry().dispatchPerSecond()).isEqualTo(0.2);
        assertThat(r.gantry().budgetRatio()).isEqualTo(0.1);
        assertThat(r.baseline()).isEqualTo(new Resilience.BaselineRetries(20, Duration.ofSeconds(2)));
        Resilience.Outbound pool = r.outbound().orElseThrow();
        assertThat(pool.workers()).isEqualTo(4);
        assertThat(pool.endpoints()).extracting(Resilience.Endpoint::name).containsExactly("provider", "slack");
        assertThat(pool.endpoints().getFirst().hangingAt(Duration.ofMinutes(30))).isTrue();
        assertThat(pool.endpoints().getFirst().failingAt(Duration.ofMinutes(15))).isTrue();
        assertThat(pool.endpoints().getFirst().failingAt(Duration.ofMinutes(45))).isFalse();
    }

    @Test
    void problems_in_the_failure_sections_have_their_positions_too() {
        String text = DeterminismTest.SCENARIO + """
                database:
                  latency: 20ms
                  read_only: [{from: 2h, until: 1h}]
                gantry: {pause: {ramp_from: 0}, colour: red}
                outbound: {workers: 5, share: 0.1}
                """;

        assertThatThrownBy(() -> ScenarioReader.read("faults.yaml", text))
                .isInstanceOfSatisfying(ScenarioException.class, e -> assertThat(e.problems())
                        .extracting(Problem::line, Problem::column)
                        .containsExactly(
                                tuple(27, 3),   // the database needs writes_per_second
                                tuple(28, 33),  // a window ending before it starts
                                tuple(30, 31),  // a 10 % share of 5 workers is no worker
                                tuple(29, 33),  // an unknown key
                                tuple(29, 29)));  // a ramp from 0 never resumes
    }
}
