package dev.gantry.server.insights;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The trends of a workflow's summary: each metric's relative change from the window before, of the same length,
 * {@code (current - previous) / previous}: 0.5 is half as much again, -1 is down to nothing. 0 when there is nothing
 * to compare with (no previous figure, or a previous 0). Pure.
 */
final class Trends {
    private Trends() {
    }

    /** The workflow {@code name} of {@code summaries}, or one without runs over {@code scope}. */
    static ProjectInsights.WorkflowSummary find(List<ProjectInsights.WorkflowSummary> summaries, String name,
                                                ProjectInsights.Scope scope) {
        return summaries.stream().filter(w -> w.name().equals(name)).findFirst()
                .orElseGet(() -> new ProjectInsights.WorkflowSummary(name, 0, 0, new ProjectInsights.Durations(
                        null, null, null, null, null, null), 0, null, 0, scope.since(), scope.until()));
    }

    /** CircleCI's trend fields for {@code current} over {@code currentDays} against {@code previous}. */
    static Map<String, Double> of(ProjectInsights.WorkflowSummary current, ProjectInsights.WorkflowSummary previous,
                                  double currentDays, double previousDays) {
        Map<String, Double> trends = new LinkedHashMap<>();
        trends.put("total_runs", change(current.runs(), previous.runs()));
        trends.put("failed_runs", change(current.runs() - current.successes(), previous.runs() - previous.successes()));
        trends.put("success_rate", change(InsightsRoutes.rate(current.successes(), current.runs()),
                InsightsRoutes.rate(previous.successes(), previous.runs())));
        trends.put("p95_duration_secs", change(current.durations().p95Ms(), previous.durations().p95Ms()));
        trends.put("median_duration_secs", change(current.durations().medianMs(), previous.durations().medianMs()));
        trends.put("total_credits_used", change(current.credits(), previous.credits()));
        trends.put("mttr", change(current.mttrMs(), previous.mttrMs()));
        trends.put("throughput", change(current.runs() / currentDays, previous.runs() / previousDays));
        return trends;
    }

    /** The relative change from {@code previous} to {@code current}; 0 without a previous figure above 0. */
    static double change(Number current, Number previous) {
        if (current == null || previous == null || previous.doubleValue() == 0) {
            return 0;
        }
        return (current.doubleValue() - previous.doubleValue()) / previous.doubleValue();
    }
}
