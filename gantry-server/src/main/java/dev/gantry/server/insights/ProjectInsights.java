package dev.gantry.server.insights;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.transaction.TransactionIsolationLevel;

/**
 * A project's insights over the last {@code days} UTC days (today included), optionally on one branch: per workflow
 * its runs, success rate and the p50 and p95 of its successful runs' durations, over the window and per day; and the
 * tests of its jobs, the slowest by their p95 run time and the flakiest (a test is flaky when it both passed and
 * failed on the same commit, as CircleCI defines it). The rules are in {@link InsightsDao}. Thread-safe.
 */
public final class ProjectInsights {
    /** The windows a reader may choose, in days. */
    public static final List<Integer> WINDOWS = List.of(7, 14, 30, 90);
    public static final int DEFAULT_DAYS = 30;
    /** How many slowest and flakiest tests a report lists. */
    static final int TESTS = 10;

    private final Jdbi jdbi;

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
        // One snapshot for the three reads, so the figures agree with each other.
        return jdbi.inTransaction(TransactionIsolationLevel.REPEATABLE_READ, h -> {
            InsightsDao dao = h.attach(InsightsDao.class);
            List<Workflow> workflows = workflows(dao.workflows(projectId, since, branch), dates);
            List<TestTiming> slowest = dao.slowest(projectId, since, branch, TESTS).stream()
                    .map(t -> new TestTiming(t.job(), t.classname(), t.name(), t.runs(), t.failures(),
                            t.p50Seconds(), t.p95Seconds()))
                    .toList();
            List<FlakyTest> flaky = dao.flaky(projectId, since, branch, TESTS).stream()
                    .map(f -> new FlakyTest(f.job(), f.classname(), f.name(), f.timesFlaked(), f.commits(),
                            f.lastFlakedAt()))
                    .toList();
            return new Report(days, branch, since.toInstant(), dates, workflows, slowest, flaky);
        });
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
