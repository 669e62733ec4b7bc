package dev.gantry.server.status;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gantry.server.status.Measurements.Count;
import dev.gantry.server.status.Measurements.JobStarts;
import dev.gantry.server.status.Measurements.Traffic;
import dev.gantry.server.status.Measurements.Waits;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The state rules of the status page, on figures made by hand: no database, no clock. */
class StatusRulesTest {
    static final StatusSettings SETTINGS = StatusSettings.defaults();
    static final Instant NOW = Instant.parse("2026-12-05T21:00:00Z");

    @ParameterizedTest(name = "{1} of {0} requests failed: {2}")
    @CsvSource({
            "1000, 0, OPERATIONAL",
            "1000, 10, OPERATIONAL",
            "1000, 11, DEGRADED",
            "1000, 49, DEGRADED",
            "1000, 50, PARTIAL_OUTAGE",
            "1000, 249, PARTIAL_OUTAGE",
            "1000, 250, MAJOR_OUTAGE",
            "20, 20, MAJOR_OUTAGE",
            "19, 19, OPERATIONAL",
            "0, 0, OPERATIONAL"})
    void an_error_rate_is_degraded_above_1_percent_partial_from_5_and_major_from_25_with_20_requests_at_least(
            long requests, long errors, ComponentState expected) {
        assertThat(StateRules.errorRate(new Count(requests, errors))).isEqualTo(expected);
    }

    @ParameterizedTest(name = "a wait of {0} ms against 2 min: {1}")
    @CsvSource({
            "0, OPERATIONAL",
            "120000, OPERATIONAL",
            "120001, DEGRADED",
            "600000, DEGRADED",
            "600001, PARTIAL_OUTAGE",
            "1800000, PARTIAL_OUTAGE",
            "1800001, MAJOR_OUTAGE"})
    void a_wait_is_degraded_over_its_objective_partial_over_5_times_it_and_major_over_15_times_it(
            long millis, ComponentState expected) {
        assertThat(StateRules.wait(millis, Duration.ofMinutes(2))).isEqualTo(expected);
    }

    @Test
    void a_class_nobody_serves_is_judged_by_the_growing_wait_of_its_jobs_and_says_so_in_one_line() {
        JobStarts large = new JobStarts("large", "default", new Waits(3, 3, 432_000, 550_000),
                new Waits(3, 3, 432_000, 550_000));

        ComponentStatus row = StateRules.jobStarts(large, SETTINGS);

        assertThat(row.id()).isEqualTo("job-starts/large");
        assertThat(row.name()).isEqualTo("Job starts: large");
        assertThat(row.state()).isEqualTo(ComponentState.DEGRADED);
        assertThat(row.reason()).isEqualTo("p95 start latency 7m12s over the last 5 min against an objective of 2m; "
                + "3 waiting, the oldest for 9m10s");
        Sli p95 = row.sli(Sli.START_LATENCY_P95).orElseThrow();
        assertThat(p95.window()).isEqualTo(Duration.ofMinutes(5));
        assertThat(p95.valueText()).isEqualTo("7m12s");
        assertThat(p95.objectiveText()).isEqualTo("2m");
        assertThat(p95.overObjective()).isTrue();
        assertThat(row.slis()).extracting(Sli::windowText).containsExactly("last 5 min", "last 60 min", "now");
    }

    @Test
    void one_job_stuck_for_long_makes_a_busy_class_degraded_though_its_p95_is_fine() {
        JobStarts medium = new JobStarts("medium", "default", new Waits(500, 1, 3_000, 11 * 60_000),
                Waits.NONE);

        ComponentStatus row = StateRules.jobStarts(medium, SETTINGS);

        assertThat(row.state()).isEqualTo(ComponentState.DEGRADED);
        assertThat(row.reason()).isEqualTo("p95 start latency 3s over the last 5 min (objective 2m), 500 jobs; "
                + "1 waiting, the oldest for 11m");
    }

    @Test
    void every_known_class_has_a_row_even_idle_and_other_pools_get_rows_of_their_own_smallest_class_first() {
        List<ComponentStatus> rows = StateRules.jobStarts(List.of(
                new JobStarts("large", "macos", new Waits(1, 0, 1_000, 0), Waits.NONE),
                new JobStarts("gpu", "default", new Waits(1, 0, 1_000, 0), Waits.NONE)), SETTINGS,
                List.of("small", "large"));

        assertThat(rows).extracting(ComponentStatus::id).containsExactly("job-starts/small", "job-starts/large",
                "job-starts/large/macos", "job-starts/gpu");
        assertThat(rows.get(0).state()).isEqualTo(ComponentState.OPERATIONAL);
        assertThat(rows.get(0).reason()).isEqualTo("no job waited over the last 5 min");
        assertThat(rows.get(2).name()).isEqualTo("Job starts: large (macos pool)");
    }

    @Test
    void an_api_error_rate_reason_names_the_rate_the_requests_and_the_objective() {
        ComponentStatus bad = StateRules.traffic("api", "API", ComponentStatus.GROUP_API, "API request",
                new Traffic(new Count(1203, 28), new Count(9000, 30)), SETTINGS);
        ComponentStatus quiet = StateRules.traffic("api", "API", ComponentStatus.GROUP_API, "API request",
                new Traffic(new Count(5, 2), new Count(5, 2)), SETTINGS);

        assertThat(bad.state()).isEqualTo(ComponentState.DEGRADED);
        assertThat(bad.reason()).isEqualTo("2.3 % of 1,203 API requests failed (5xx) over the last 5 min against an "
                + "objective of at most 1 %");
        assertThat(bad.slis()).extracting(Sli::valueText).containsExactly("2.3 %", "0.3 %");
        assertThat(quiet.state()).isEqualTo(ComponentState.OPERATIONAL);
        assertThat(quiet.reason()).isEqualTo("5 API requests over the last 5 min, 2 failed (5xx): too few to judge "
                + "(20 needed)");
        assertThat(StateRules.traffic("api", "API", ComponentStatus.GROUP_API, "API request",
                new Traffic(new Count(1, 0), new Count(1, 0)), SETTINGS).reason())
                .isEqualTo("1 API request over the last 5 min, 0 failed (5xx): too few to judge (20 needed)");
    }

    @Test
    void intake_is_the_worse_of_its_failures_and_the_wait_for_plans() {
        ComponentStatus lagging = StateRules.intake(new Measurements.Intake(new Count(40, 0), new Count(40, 0), 3,
                400_000), SETTINGS);
        ComponentStatus failing = StateRules.intake(new Measurements.Intake(new Count(40, 12), new Count(40, 12), 0,
                0), SETTINGS);

        assertThat(lagging.state()).isEqualTo(ComponentState.PARTIAL_OUTAGE);
        assertThat(lagging.reason()).startsWith("3 pipelines waiting for a plan, the oldest for 6m40s against an "
                + "objective of 1m; ");
        assertThat(failing.state()).isEqualTo(ComponentState.MAJOR_OUTAGE);
        assertThat(failing.reason()).isEqualTo("30 % of 40 triggers and plans failed on the server's side over the "
                + "last 5 min against an objective of at most 1 %; no pipeline waits for its plan");
    }

    @Test
    void notifications_are_judged_by_the_share_of_failing_deliveries() {
        ComponentStatus quiet = StateRules.notifications(Traffic.NONE, SETTINGS);

        assertThat(quiet.state()).isEqualTo(ComponentState.OPERATIONAL);
        assertThat(quiet.reason()).isEqualTo("no notifications over the last 5 min");
        assertThat(StateRules.notifications(new Traffic(new Count(100, 30), new Count(100, 30)),
                SETTINGS).state()).isEqualTo(ComponentState.MAJOR_OUTAGE);
    }

    @Test
    void the_database_is_a_major_outage_unread_a_partial_one_read_only_and_degraded_when_a_write_is_slow() {
        Instant since = NOW.minusSeconds(42);
        ComponentStatus down = StateRules.database(new DatabaseHealth(NOW, false, false, null,
                "no connection to it could be had", since));
        ComponentStatus readOnly = StateRules.database(new DatabaseHealth(NOW, true, false, null, "it is read-only",
                since));
        ComponentStatus slow = StateRules.database(DatabaseHealth.healthy(NOW, Duration.ofMillis(1400)));
        ComponentStatus fine = StateRules.database(DatabaseHealth.healthy(NOW, Duration.ofMillis(12)));

        assertThat(down.state()).isEqualTo(ComponentState.MAJOR_OUTAGE);
        assertThat(down.reason()).isEqualTo("this server cannot read from the database since 2026-12-05 20:59:18 UTC: "
                + "no connection to it could be had");
        assertThat(readOnly.state()).isEqualTo(ComponentState.PARTIAL_OUTAGE);
        assertThat(readOnly.reason()).contains("refuses writes", "read-only");
        assertThat(slow.state()).isEqualTo(ComponentState.DEGRADED);
        assertThat(slow.reason()).isEqualTo("a write took 1.4s against an objective of 1s");
        assertThat(fine.state()).isEqualTo(ComponentState.OPERATIONAL);
        assertThat(fine.reason()).isEqualTo("reads and writes answer; a write took 12 ms");
    }

    @Test
    void a_stale_row_is_unknown_since_the_failure_and_says_what_it_last_showed() {
        ComponentStatus api = StateRules.traffic("api", "API", ComponentStatus.GROUP_API, "API request",
                Traffic.NONE, SETTINGS);

        ComponentStatus stale = StateRules.stale(api, NOW);

        assertThat(stale.state()).isEqualTo(ComponentState.UNKNOWN);
        assertThat(stale.reason()).isEqualTo("unknown since 2026-12-05 21:00:00 UTC: the figures cannot be read "
                + "from the database (last seen operational)");
        assertThat(stale.slis()).isEqualTo(api.slis());
    }

    @Test
    void the_page_is_as_bad_as_its_worst_measured_row_and_unknown_when_nothing_was_measured() {
        assertThat(ComponentState.overall(List.of(ComponentState.OPERATIONAL, ComponentState.NO_DATA,
                ComponentState.DEGRADED, ComponentState.UNKNOWN))).isEqualTo(ComponentState.DEGRADED);
        assertThat(ComponentState.overall(List.of(ComponentState.UNKNOWN, ComponentState.NO_DATA)))
                .isEqualTo(ComponentState.UNKNOWN);
        assertThat(ComponentState.overall(List.of(ComponentState.UNKNOWN, ComponentState.MAJOR_OUTAGE)))
                .isEqualTo(ComponentState.MAJOR_OUTAGE);
    }

    @Test
    void figures_are_written_for_people() {
        assertThat(Texts.duration(Duration.ofMillis(850))).isEqualTo("850 ms");
        assertThat(Texts.duration(Duration.ofMillis(1400))).isEqualTo("1.4s");
        assertThat(Texts.duration(Duration.ofMillis(1001))).as("rounded up").isEqualTo("1.1s");
        assertThat(Texts.duration(Duration.ofSeconds(3))).isEqualTo("3s");
        assertThat(Texts.duration(Duration.ofSeconds(432))).isEqualTo("7m12s");
        assertThat(Texts.duration(Duration.ofMinutes(65))).isEqualTo("1h05m");
        assertThat(Texts.window(Duration.ofMinutes(60))).isEqualTo("60 min");
        assertThat(Texts.window(Duration.ofSeconds(10))).isEqualTo("10 s");
        assertThat(Texts.window(Duration.ofHours(24))).isEqualTo("24 h");
        assertThat(Texts.percent(0.004)).isEqualTo("0.4 %");
        assertThat(Texts.percent(0.0004)).isEqualTo("0.04 %");
        assertThat(Texts.percent(0.25)).isEqualTo("25 %");
        assertThat(Texts.count(1203)).isEqualTo("1,203");
    }
}
