package dev.gantry.server.insights;

import dev.gantry.resilience.Bulkhead;
import dev.gantry.server.http.ApiException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.transaction.TransactionIsolationLevel;

/**
 * A project's insights over the last {@code days} UTC days (today included), optionally on one branch: per workflow
 * its runs, success rate and the p50 and p95 of its successful runs' durations, over the window and per day; and the
 * tests of its jobs, the slowest by their p95 run time and the flakiest (a test is flaky when it both passed and
 * failed on the same commit, as CircleCI defines it). The rules are in {@link InsightsDao}. The same reads, over
 * other scopes, serve CircleCI's Insights API ({@link InsightsRoutes}): workflow and job summaries, recent runs, test
 * metrics, flaky tests and branches. Thread-safe.
 */
public final class ProjectInsights {
    /** The windows a reader may choose, in days. */
    public static final List<Integer> WINDOWS = List.of(7, 14, 30, 90);
    public static final int DEFAULT_DAYS = 30;
    /** How many slowest and flakiest tests a report lists. */
    static final int TESTS = 10;
    /** How far back the API looks, as CircleCI's Insights keep 90 days. */
    public static final Duration HORIZON = Duration.ofDays(90);
    /** A test is flaky while its last flake is this recent. */
    static final Duration STILL_FLAKY = Duration.ofDays(14);
    /** How many of a workflow's latest runs its test metrics cover, as CircleCI's. */
    static final int TEST_METRICS_RUNS = 10;
    static final int MAX_FLAKY = 1_000;
    static final int MAX_BRANCHES = 5_000;
    /**
     * How many reads run at once, and for one project. A read aggregates a window of runs and test results on the
     * main pool, whose connections triggers and the orchestrator need: viewers of one busy project's insights must not
     * take them all (the postmortem in which one subsystem's retries drained a shared pool).
     */
    static final int READS_AT_ONCE = 3;
    static final int READS_PER_PROJECT = 2;
    /** The longest one statement of a read runs; then the read is answered 503 (query_canceled). */
    static final Duration STATEMENT_TIMEOUT = Duration.ofSeconds(10);
    static final Duration RETRY_AFTER = Duration.ofSeconds(5);

    private final Jdbi jdbi;
    private final Bulkhead reads = new Bulkhead(READS_AT_ONCE, READS_PER_PROJECT);

    public ProjectInsights(Jdbi jdbi) {
        this.jdbi = jdbi;
    }

    /** One day of a workflow; a day without runs has zero runs and no durations. */
    public record Day(LocalDate day, long runs, long successes, Long p50Ms, Long p95Ms) {
        /** Successful runs out of all runs, in percent; null without runs. */
        public Double successRate() {
            return runs == 0 ? null : 100.0 * successes / runs;
        }
    }

    /** A workflow over the window ({@code total}) and per day, every day of the window present, oldest first. */
    public record Workflow(String name, Day total, List<Day> days) {
    }

    /** A test's run times over the window, in seconds. */
    public record TestTiming(String job, String classname, String name, long runs, long failures, double p50Seconds,
                             double p95Seconds) {
    }

    /**
     * A flaky test: {@code timesFlaked} is the number of its failures on commits where it also passed, {@code commits}
     * how many such commits there were.
     */
    public record FlakyTest(String job, String classname, String name, long timesFlaked, long commits,
                            Instant lastFlakedAt) {
    }

    /** @param since the start of the window's first day */
    public record Report(int days, String branch, Instant since, List<LocalDate> dates, List<Workflow> workflows,
                         List<TestTiming> slowest, List<FlakyTest> flaky) {
    }

    /** {@code days} of {@link #WINDOWS}, ending with the UTC day of {@code now}. */
    public Report read(UUID projectId, int days, String branch, Instant now) {
        if (!WINDOWS.contains(days)) {
            throw new IllegalArgumentException("a window is one of " + WINDOWS + " days, not " + days);
        }
        LocalDate today = LocalDate.ofInstant(now, ZoneOffset.UTC);
        LocalDate first = today.minusDays(days - 1L);
        List<LocalDate> dates = first.datesUntil(today.plusDays(1)).toList();
        var since = first.atStartOfDay().atOffset(ZoneOffset.UTC);
        var until = today.plusDays(1).atStartOfDay().atOffset(ZoneOffset.UTC);
        // One snapshot for the three reads, so the figures agree with each other.
        return reading(projectId, dao -> {
            List<Workflow> workflows = workflows(dao.workflows(projectId, since, until, branch), dates);
            List<TestTiming> slowest = dao.slowest(projectId, since, branch, null, TESTS).stream()
                    .map(t -> new TestTiming(t.job(), t.classname(), t.name(), t.runs(), t.failures(),
                            t.p50Seconds(), t.p95Seconds()))
                    .toList();
            List<FlakyTest> flaky = dao.flaky(projectId, since, branch, null, since, TESTS).stream()
                    .map(f -> new FlakyTest(f.job(), f.classname(), f.name(), f.timesFlaked(), f.commits(),
                            f.lastFlakedAt()))
                    .toList();
            return new Report(days, branch, since.toInstant(), dates, workflows, slowest, flaky);
        });
    }

    /**
     * {@code read} in a snapshot of its own (REPEATABLE READ), if the bulkhead lets one more read of the project run
     * now; else 503 with {@code Retry-After}. Its transaction has memory enough to group a month of a busy project's
     * test results (60,000) in memory (at PostgreSQL's default 4 MB they spill to disk), and each statement at most
     * {@link #STATEMENT_TIMEOUT}. Each statement is planned for its values: whether a branch or workflows are given
     * changes the best plan, and the generic plan the driver's prepared statements get after a few runs took the
     * flaky tests' read from 41 to 70 ms.
     */
    private <T> T reading(UUID projectId, Function<InsightsDao, T> read) {
        String project = projectId.toString();
        if (!reads.tryAcquire(project)) {
            throw ApiException.unavailable("too many insights reads under way (at most " + READS_AT_ONCE
                    + " at once, " + READS_PER_PROJECT + " of one project); retry after " + RETRY_AFTER.toSeconds()
                    + " seconds", RETRY_AFTER);
        }
        try {
            return jdbi.inTransaction(TransactionIsolationLevel.REPEATABLE_READ, h -> {
                h.execute("SET LOCAL work_mem = '32MB'");
                h.execute("SET LOCAL statement_timeout = " + STATEMENT_TIMEOUT.toMillis());
                h.execute("SET LOCAL plan_cache_mode = force_custom_plan");
                return read.apply(h.attach(InsightsDao.class));
            });
        } finally {
            reads.release(project);
        }
    }

    // ---- The API's reads (CircleCI's Insights API, served by InsightsRoutes) ----

    /** What an API read covers: runs created in {@code [since, until)}, on {@code branch} (null: every branch). */
    public record Scope(UUID projectId, String branch, Instant since, Instant until) {
        /** The window's length in days, for runs per day. */
        public double days() {
            return Duration.between(since, until).toMillis() / (double) Duration.ofDays(1).toMillis();
        }

        OffsetDateTime from() {
            return since.atOffset(ZoneOffset.UTC);
        }

        OffsetDateTime to() {
            return until.atOffset(ZoneOffset.UTC);
        }
    }

    /** Durations of successful runs in milliseconds; all null without one. */
    public record Durations(Long minMs, Long meanMs, Long medianMs, Long p95Ms, Long maxMs, Double stddevMs) {
    }

    /**
     * A workflow over a scope: {@code recoveries} counts successes that ended a streak of failed runs, and
     * {@code mttrMs} is their mean time from the streak's first failure to that success (null without one);
     * {@code credits} are what the usage ledger charged for its runs' jobs.
     */
    public record WorkflowSummary(String name, long runs, long successes, Durations durations, long recoveries,
                                  Long mttrMs, long credits, Instant firstAt, Instant lastAt) {
    }

    /** A job name's runs in a workflow over a scope (build jobs that ran to an end; carried-over ones did not). */
    public record JobSummary(String name, long runs, long successes, Durations durations, long credits,
                             Instant firstAt, Instant lastAt) {
    }

    /** Where a page of runs continues: after the run created at {@code createdAt} with {@code id}. */
    public record RunPosition(Instant createdAt, UUID id) {
    }

    /** A run of a workflow; {@code approval} when it holds an approval job. */
    public record Run(UUID id, String branch, long pipelineNumber, String status, Instant createdAt,
                      Instant stoppedAt, long durationMs, long credits, boolean approval) {
    }

    /** A test over some runs; {@code flaky} when it both passed and failed on one commit among them. */
    public record TestSummary(String job, String classname, String name, String file, long runs, long failures,
                              double p95Seconds, boolean flaky) {
    }

    /** The test results of one run, by result. */
    public record RunTests(UUID workflowId, long pipelineNumber, long success, long failure, long error,
                           long skipped) {
        public long total() {
            return success + failure + error + skipped;
        }
    }

    /** The tests of a workflow's latest runs ({@code runs}, newest first): every test, slowest first. */
    public record TestMetrics(List<TestSummary> tests, List<RunTests> runs) {
    }

    /**
     * A flaky test and where it flaked last; {@code secondsWasted} is the run time of its failures on the commits
     * where it also passed.
     */
    public record Flake(String job, String classname, String name, String file, long timesFlaked,
                        double secondsWasted, long jobNumber, UUID workflowId, String workflowName,
                        Instant workflowCreatedAt, long pipelineNumber) {
    }

    /** The repository's default branch as the plan builder last read it, or null before any pipeline was planned. */
    public String defaultBranch(UUID projectId) { // one row by key: no bulkhead
        return jdbi.withExtension(InsightsDao.class, dao -> dao.defaultBranch(projectId));
    }

    /** Each workflow with runs in {@code scope}, by name (code point order). */
    public List<WorkflowSummary> workflows(Scope scope) {
        return reading(scope.projectId(), dao -> {
            var from = scope.from();
            var to = scope.to();
            Map<String, InsightsDao.RecoveryRow> recoveries = new HashMap<>();
            dao.recoveries(scope.projectId(), from, to, scope.branch()).forEach(r -> recoveries.put(r.name(), r));
            Map<String, Long> credits = new HashMap<>();
            dao.credits(scope.projectId(), from, to, scope.branch()).forEach(c -> credits.put(c.name(), c.credits()));
            return dao.workflows(scope.projectId(), from, to, scope.branch()).stream()
                    .filter(w -> w.day() == null)
                    .map(w -> {
                        InsightsDao.RecoveryRow recovered = recoveries.get(w.name());
                        return new WorkflowSummary(w.name(), w.runs(), w.successes(), new Durations(w.minMs(),
                                w.meanMs(), w.p50Ms(), w.p95Ms(), w.maxMs(), w.stddevMs()),
                                recovered == null ? 0 : recovered.recoveries(),
                                recovered == null ? null : recovered.mttrMs(), credits.getOrDefault(w.name(), 0L),
                                w.firstAt(), w.lastAt());
                    })
                    .sorted(Comparator.comparing(WorkflowSummary::name))
                    .toList();
        });
    }

    /** {@code workflow}'s runs in {@code scope}, newest first, from after {@code after} (null: the newest). */
    public List<Run> runs(Scope scope, String workflow, RunPosition after, int limit) {
        return reading(scope.projectId(), dao -> dao.runs(scope.projectId(), workflow, scope.from(),
                scope.to(), scope.branch(), after == null ? null : after.createdAt().atOffset(ZoneOffset.UTC),
                after == null ? null : after.id(), limit)).stream()
                .map(r -> new Run(r.id(), r.branch(), r.pipelineNumber(), r.status(), r.createdAt(), r.stoppedAt(),
                        r.durationMs(), r.credits(), r.approval()))
                .toList();
    }

    /** The jobs of {@code workflow} in {@code scope} by name, those containing {@code nameContains} if not null. */
    public List<JobSummary> jobs(Scope scope, String workflow, String nameContains) {
        return reading(scope.projectId(), dao -> dao.jobs(scope.projectId(), workflow, scope.from(),
                scope.to(), scope.branch(), nameContains)).stream()
                .map(j -> new JobSummary(j.name(), j.runs(), j.successes(), new Durations(j.minMs(), j.meanMs(),
                        j.p50Ms(), j.p95Ms(), j.maxMs(), j.stddevMs()), j.credits(), j.firstAt(), j.lastAt()))
                .toList();
    }

    /** The tests of the latest {@value #TEST_METRICS_RUNS} runs of {@code workflow} (on {@code branch}, or all). */
    public TestMetrics testMetrics(UUID projectId, String workflow, String branch, Instant now) {
        Scope scope = new Scope(projectId, branch, now.minus(HORIZON), now);
        return reading(projectId, dao -> {
            List<InsightsDao.RunRow> latest = dao.runs(projectId, workflow, scope.from(), scope.to(), branch, null,
                    null, TEST_METRICS_RUNS);
            if (latest.isEmpty()) {
                return new TestMetrics(List.of(), List.of());
            }
            UUID[] ids = latest.stream().map(InsightsDao.RunRow::id).toArray(UUID[]::new);
            Set<List<String>> flaky = new HashSet<>();
            dao.flaky(projectId, scope.from(), null, ids, scope.from(), Integer.MAX_VALUE)
                    .forEach(f -> flaky.add(List.of(f.job(), f.classname(), f.name())));
            List<TestSummary> tests = dao.slowest(projectId, scope.from(), null, ids, Integer.MAX_VALUE).stream()
                    .map(t -> new TestSummary(t.job(), t.classname(), t.name(), t.file(), t.runs(), t.failures(),
                            t.p95Seconds(), flaky.contains(List.of(t.job(), t.classname(), t.name()))))
                    .toList();
            Map<UUID, InsightsDao.TestCountRow> counts = new HashMap<>();
            dao.testCounts(ids).forEach(c -> counts.put(c.workflowId(), c));
            List<RunTests> runs = latest.stream().map(r -> {
                InsightsDao.TestCountRow c = counts.getOrDefault(r.id(), new InsightsDao.TestCountRow(r.id(), 0, 0, 0,
                        0));
                return new RunTests(r.id(), r.pipelineNumber(), c.success(), c.failure(), c.error(), c.skipped());
            }).toList();
            return new TestMetrics(tests, runs);
        });
    }

    /**
     * The project's flaky tests on every branch over the last {@link #HORIZON}, those that flaked within
     * {@link #STILL_FLAKY} (CircleCI's rule: a test is no longer flaky after two weeks without a flake), most flakes
     * first, at most {@value #MAX_FLAKY}.
     */
    public List<Flake> flaky(UUID projectId, Instant now) {
        OffsetDateTime since = now.minus(HORIZON).atOffset(ZoneOffset.UTC);
        return reading(projectId, dao -> dao.flaky(projectId, since, null, null,
                now.minus(STILL_FLAKY).atOffset(ZoneOffset.UTC), MAX_FLAKY)).stream()
                .map(f -> new Flake(f.job(), f.classname(), f.name(), f.file(), f.timesFlaked(), f.failedSeconds(),
                        f.jobNumber(), f.workflowId(), f.workflowName(), f.workflowCreatedAt(), f.pipelineNumber()))
                .toList();
    }

    /** The branches with runs over the last {@link #HORIZON} (of {@code workflow}, if not null), at most 5,000. */
    public List<String> branches(UUID projectId, String workflow, Instant now) {
        return reading(projectId, dao -> dao.branches(projectId,
                now.minus(HORIZON).atOffset(ZoneOffset.UTC), workflow, MAX_BRANCHES));
    }

    /** The rows per workflow (its total first, then its days) as workflows with every date filled in. */
    static List<Workflow> workflows(List<InsightsDao.WorkflowRow> rows, List<LocalDate> dates) {
        Map<String, Day> totals = new LinkedHashMap<>();
        Map<String, Map<LocalDate, Day>> byDay = new LinkedHashMap<>();
        for (InsightsDao.WorkflowRow row : rows) {
            Day day = new Day(row.day(), row.runs(), row.successes(), row.p50Ms(), row.p95Ms());
            if (row.day() == null) {
                totals.put(row.name(), day);
            } else {
                byDay.computeIfAbsent(row.name(), n -> new LinkedHashMap<>()).put(row.day(), day);
            }
        }
        List<Workflow> workflows = new ArrayList<>();
        totals.forEach((name, total) -> {
            Map<LocalDate, Day> known = byDay.getOrDefault(name, Map.of());
            List<Day> days = dates.stream().map(d -> known.getOrDefault(d, new Day(d, 0, 0, null, null))).toList();
            workflows.add(new Workflow(name, total, days));
        });
        return workflows;
    }
}
