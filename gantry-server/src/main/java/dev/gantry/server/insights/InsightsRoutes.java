package dev.gantry.server.insights;

import dev.gantry.server.http.Json;
import dev.gantry.server.http.ListJson;
import dev.gantry.server.http.PageToken;
import dev.gantry.server.project.Project;
import dev.gantry.server.project.ProjectRoutes;
import dev.gantry.server.project.ProjectSlug;
import dev.gantry.server.project.Projects;
import io.javalin.http.Context;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;

/**
 * A project's insights in the shapes of CircleCI's Insights API v2 ({@code /api/v2/insights/{project-slug}/…}), so
 * scripts and dashboards written for CircleCI read Gantry unchanged. Shapes and parameters follow CircleCI's published
 * OpenAPI document (the one in {@code gantry-server/src/test/resources/circleci-openapi/}, whose README names its
 * source); figures are read through {@link ProjectInsights}, the page's own reads. Durations are in whole seconds, as
 * CircleCI's. Thread-safe.
 *
 * <p>{@code branch} or {@code all-branches=true} choose the branch (never both); with neither, the repository's
 * default branch, as CircleCI's (every branch until a pipeline was planned, when it is not known yet).
 */
public final class InsightsRoutes {
    private final ProjectInsights insights;
    private final Projects projects;
    private final InstantSource clock;

    public InsightsRoutes(ProjectInsights insights, Projects projects, InstantSource clock) {
        this.insights = insights;
        this.projects = projects;
        this.clock = clock;
    }

    record DurationJson(Long min, Long mean, Long median, Long p95, Long max, Double standardDeviation) {
        static DurationJson of(ProjectInsights.Durations d) {
            return new DurationJson(seconds(d.minMs()), seconds(d.meanMs()), seconds(d.medianMs()),
                    seconds(d.p95Ms()), seconds(d.maxMs()), d.stddevMs() == null ? null : d.stddevMs() / 1000);
        }
    }

    record WorkflowMetricsJson(long totalRuns, long successfulRuns, Long mttr, long totalCreditsUsed,
                               long failedRuns, double successRate, DurationJson durationMetrics,
                               long totalRecoveries, double throughput) {
        static WorkflowMetricsJson of(ProjectInsights.WorkflowSummary w, double days) {
            return new WorkflowMetricsJson(w.runs(), w.successes(), seconds(w.mttrMs()), w.credits(),
                    w.runs() - w.successes(), rate(w.successes(), w.runs()), DurationJson.of(w.durations()),
                    w.recoveries(), w.runs() / days);
        }
    }

    /** The summary's metrics: a workflow's, with its window and completed runs (every run is one). */
    record SummaryMetricsJson(long totalRuns, long successfulRuns, Long mttr, long totalCreditsUsed,
                              long failedRuns, double successRate, long completedRuns, String windowStart,
                              DurationJson durationMetrics, String windowEnd, double throughput) {
        static SummaryMetricsJson of(ProjectInsights.WorkflowSummary w, double days) {
            WorkflowMetricsJson m = WorkflowMetricsJson.of(w, days);
            return new SummaryMetricsJson(m.totalRuns(), m.successfulRuns(), m.mttr(), m.totalCreditsUsed(),
                    m.failedRuns(), m.successRate(), w.runs(), Json.time(w.firstAt()), m.durationMetrics(),
                    Json.time(w.lastAt()), m.throughput());
        }
    }

    record WorkflowJson(String name, WorkflowMetricsJson metrics, String windowStart, String windowEnd,
                        UUID projectId) {
    }

    record RunJson(UUID id, String branch, long duration, String createdAt, String stoppedAt, long creditsUsed,
                   String status, boolean isApproval) {
    }

    record JobMetricsJson(long totalRuns, long failedRuns, long successfulRuns, DurationJson durationMetrics,
                          double successRate, long totalCreditsUsed, double throughput) {
    }

    record JobJson(String name, JobMetricsJson metrics, String windowStart, String windowEnd) {
    }

    record TestJson(Double p95Duration, long totalRuns, String classname, long failedRuns, boolean flaky,
                    String source, String file, String jobName, String testName) {
        static TestJson of(ProjectInsights.TestSummary t) {
            return new TestJson(t.p95Seconds(), t.runs(), t.classname(), t.failures(), t.flaky(), null, t.file(),
                    t.job(), t.name());
        }
    }

    record TestCountsJson(long error, long failure, long skipped, long success, long total) {
    }

    record TestRunJson(long pipelineNumber, UUID workflowId, double successRate, TestCountsJson testCounts) {
    }

    /** {@code GET …/workflows?branch=&all-branches=&reporting-window=&page-token=}: per workflow, by name. */
    public void workflows(Context ctx) {
        Project project = project(ctx);
        ProjectInsights.Scope scope = InsightsParameters.window(ctx, project.id(), branch(ctx, project), clock);
        String after = InsightsParameters.nameAfter(ctx);
        List<WorkflowJson> items = insights.workflows(scope).stream()
                .filter(w -> after == null || w.name().compareTo(after) > 0)
                .map(w -> new WorkflowJson(w.name(), WorkflowMetricsJson.of(w, scope.days()), Json.time(w.firstAt()),
                        Json.time(w.lastAt()), project.id()))
                .toList();
        Json.respond(ctx, 200, page(items, WorkflowJson::name));
    }

    /** {@code GET …/workflows/{workflow_name}?branch=&all-branches=&start-date=&end-date=&page-token=}. */
    public void runs(Context ctx) {
        Project project = project(ctx);
        ProjectInsights.Scope scope = InsightsParameters.dates(ctx, project.id(), branch(ctx, project), clock);
        ProjectInsights.RunPosition after = InsightsParameters.runAfter(ctx);
        List<ProjectInsights.Run> runs = insights.runs(scope, ctx.pathParam("workflow_name"), after,
                PageToken.PAGE_SIZE + 1);
        List<RunJson> items = runs.stream().limit(PageToken.PAGE_SIZE)
                .map(r -> new RunJson(r.id(), r.branch(), Math.round(r.durationMs() / 1000.0),
                        Json.time(r.createdAt()), Json.time(r.stoppedAt()), r.credits(), r.status(), r.approval()))
                .toList();
        String next = runs.size() <= PageToken.PAGE_SIZE ? null : InsightsParameters.runToken(
                runs.get(PageToken.PAGE_SIZE - 1));
        Json.respond(ctx, 200, new ListJson<>(items, next));
    }

    /** {@code GET …/workflows/{workflow_name}/jobs?branch=&all-branches=&reporting-window=&job-name=&page-token=}. */
    public void jobs(Context ctx) {
        Project project = project(ctx);
        ProjectInsights.Scope scope = InsightsParameters.window(ctx, project.id(), branch(ctx, project), clock);
        String after = InsightsParameters.nameAfter(ctx);
        String nameContains = InsightsParameters.text(ctx, "job-name");
        List<JobJson> items = insights.jobs(scope, ctx.pathParam("workflow_name"), nameContains).stream()
                .filter(j -> after == null || j.name().compareTo(after) > 0)
                .map(j -> new JobJson(j.name(), new JobMetricsJson(j.runs(), j.runs() - j.successes(),
                        j.successes(), DurationJson.of(j.durations()), rate(j.successes(), j.runs()), j.credits(),
                        j.runs() / scope.days()), Json.time(j.firstAt()), Json.time(j.lastAt())))
                .toList();
        Json.respond(ctx, 200, page(items, JobJson::name));
    }

    /**
     * {@code GET …/workflows/{workflow_name}/summary?branch=&all-branches=&reporting-window=}: the workflow's metrics
     * over the window, each trend its relative change from the window before ({@link Trends}), and the names of the
     * project's workflows with runs in the window.
     */
    public void summary(Context ctx) {
        Project project = project(ctx);
        ProjectInsights.Scope scope = InsightsParameters.window(ctx, project.id(), branch(ctx, project), clock);
        ProjectInsights.Scope before = new ProjectInsights.Scope(scope.projectId(), scope.branch(),
                scope.since().minus(Duration.between(scope.since(), scope.until())), scope.since());
        String name = ctx.pathParam("workflow_name");
        List<ProjectInsights.WorkflowSummary> now = insights.workflows(scope);
        ProjectInsights.WorkflowSummary current = Trends.find(now, name, scope);
        ProjectInsights.WorkflowSummary previous = Trends.find(insights.workflows(before), name, before);
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("metrics", SummaryMetricsJson.of(current, scope.days()));
        answer.put("trends", Trends.of(current, previous, scope.days(), before.days()));
        answer.put("workflow_names", now.stream().map(ProjectInsights.WorkflowSummary::name).toList());
        Json.respond(ctx, 200, answer);
    }

    /** {@code GET …/workflows/{workflow_name}/test-metrics?branch=&all-branches=}: over its latest 10 runs. */
    public void testMetrics(Context ctx) {
        Project project = project(ctx);
        ProjectInsights.TestMetrics metrics = insights.testMetrics(project.id(), ctx.pathParam("workflow_name"),
                branch(ctx, project), clock.instant());
        List<ProjectInsights.TestSummary> failing = metrics.tests().stream().filter(t -> t.failures() > 0)
                .sorted((a, b) -> Long.compare(b.failures(), a.failures())).toList();
        long total = metrics.runs().stream().mapToLong(ProjectInsights.RunTests::total).sum();
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("average_test_count", metrics.runs().isEmpty() ? 0 : total / metrics.runs().size());
        answer.put("most_failed_tests", failing.stream().limit(ProjectInsights.TESTS).map(TestJson::of).toList());
        answer.put("most_failed_tests_extra", Math.max(0, failing.size() - ProjectInsights.TESTS));
        answer.put("slowest_tests", metrics.tests().stream().limit(ProjectInsights.TESTS).map(TestJson::of).toList());
        answer.put("slowest_tests_extra", Math.max(0, metrics.tests().size() - ProjectInsights.TESTS));
        answer.put("total_test_runs", total);
        answer.put("test_runs", metrics.runs().stream().map(r -> new TestRunJson(r.pipelineNumber(), r.workflowId(),
                rate(r.success(), r.success() + r.failure() + r.error()), new TestCountsJson(r.error(), r.failure(),
                r.skipped(), r.success(), r.total()))).toList());
        Json.respond(ctx, 200, answer);
    }

    /** {@code GET …/flaky-tests}: every branch; CircleCI writes these fields with hyphens. */
    public void flakyTests(Context ctx) {
        Project project = project(ctx);
        List<Map<String, Object>> flakes = new ArrayList<>();
        for (ProjectInsights.Flake f : insights.flaky(project.id(), clock.instant())) {
            Map<String, Object> flake = new LinkedHashMap<>();
            flake.put("time-wasted", Math.round(f.secondsWasted()));
            flake.put("workflow-created-at", Json.time(f.workflowCreatedAt()));
            flake.put("workflow-id", f.workflowId());
            flake.put("classname", f.classname());
            flake.put("pipeline-number", f.pipelineNumber());
            flake.put("workflow-name", f.workflowName());
            flake.put("test-name", f.name());
            flake.put("job-name", f.job());
            flake.put("job-number", f.jobNumber());
            flake.put("times-flaked", f.timesFlaked());
            flake.put("source", null);
            flake.put("file", f.file());
            flakes.add(flake);
        }
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("flaky-tests", flakes);
        answer.put("total-flaky-tests", flakes.size());
        Json.respond(ctx, 200, answer);
    }

    /** {@code GET …/branches?workflow-name=}: the branches with runs over the last 90 days. */
    public void branches(Context ctx) {
        Project project = project(ctx);
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("org_id", project.slug().organizationId());
        answer.put("project_id", project.id());
        answer.put("branches", insights.branches(project.id(), InsightsParameters.text(ctx, "workflow-name"),
                clock.instant()));
        Json.respond(ctx, 200, answer);
    }

    private Project project(Context ctx) {
        ProjectSlug slug = ProjectRoutes.slugOf(ctx);
        return projects.find(slug).orElseThrow(() -> ProjectRoutes.unknown(slug.toString()));
    }

    /** The branch a request reads: its own, null for every branch, or the repository's default. */
    private String branch(Context ctx, Project project) {
        return InsightsParameters.branch(ctx, () -> insights.defaultBranch(project.id()));
    }

    /** Successes of runs as a fraction (CircleCI's {@code success_rate}); 0 without runs. */
    static double rate(long successes, long runs) {
        return runs == 0 ? 0 : (double) successes / runs;
    }

    /** Milliseconds as whole seconds, rounded; null stays null. */
    static Long seconds(Long ms) {
        return ms == null ? null : Math.round(ms / 1000.0);
    }

    /** One page of {@code items} (ordered by {@code key}), with the token of the next if there are more. */
    static <T> ListJson<T> page(List<T> items, Function<T, String> key) {
        if (items.size() <= PageToken.PAGE_SIZE) {
            return new ListJson<>(items, null);
        }
        List<T> page = items.subList(0, PageToken.PAGE_SIZE);
        return new ListJson<>(List.copyOf(page), PageToken.after(key.apply(page.getLast())).encode());
    }
}
