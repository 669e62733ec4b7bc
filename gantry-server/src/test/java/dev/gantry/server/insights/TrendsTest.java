package dev.gantry.server.insights;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class TrendsTest {
    static final ProjectInsights.Scope WEEK = new ProjectInsights.Scope(UUID.randomUUID(), "main",
            Instant.parse("2026-11-29T00:00:00Z"), Instant.parse("2026-12-06T00:00:00Z"));

    @Test
    void a_trend_is_the_relative_change_and_zero_without_a_previous_figure() {
        assertThat(Trends.change(15, 10)).isEqualTo(0.5);
        assertThat(Trends.change(0, 10)).isEqualTo(-1.0);
        assertThat(Trends.change(5, 0)).isEqualTo(0.0);
        assertThat(Trends.change(5, null)).isEqualTo(0.0);
        assertThat(Trends.change(null, 5)).isEqualTo(0.0);
    }

    @Test
    void each_metric_trends_against_the_window_before() {
        ProjectInsights.WorkflowSummary now = new ProjectInsights.WorkflowSummary("build", 10, 5,
                new ProjectInsights.Durations(10L, 20L, 20_000L, 60_000L, 90L, 1.0), 2, 3_000L, 100, null, null);
        ProjectInsights.WorkflowSummary before = new ProjectInsights.WorkflowSummary("build", 5, 5,
                new ProjectInsights.Durations(10L, 20L, 40_000L, 40_000L, 90L, 1.0), 0, null, 50, null, null);

        var trends = Trends.of(now, before, 7, 7);

        assertThat(trends).containsEntry("total_runs", 1.0).containsEntry("failed_runs", 0.0)
                .containsEntry("success_rate", -0.5).containsEntry("median_duration_secs", -0.5)
                .containsEntry("p95_duration_secs", 0.5).containsEntry("total_credits_used", 1.0)
                .containsEntry("mttr", 0.0).containsEntry("throughput", 1.0);
    }

    @Test
    void a_workflow_without_runs_in_the_window_has_zero_runs_and_the_window_as_its_bounds() {
        ProjectInsights.WorkflowSummary none = Trends.find(java.util.List.of(), "deploy", WEEK);

        assertThat(none.runs()).isZero();
        assertThat(none.firstAt()).isEqualTo(WEEK.since());
        assertThat(none.lastAt()).isEqualTo(WEEK.until());
        assertThat(WEEK.days()).isEqualTo(7.0);
    }
}
