package dev.gantry.server.ui;

import dev.gantry.scheduler.fleet.FleetEvent;
import dev.gantry.server.admin.QueueAdminRoutes;
import dev.gantry.server.auth.Principal;
import dev.gantry.server.fleet.FleetInsights;
import dev.gantry.server.fleet.QueueInsights;
import dev.gantry.server.insights.ProjectInsights;
import dev.gantry.server.project.ProjectSlug;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * The models of the fleet, queues and insights pages, read through the same code as the API's insights
 * ({@link FleetInsights}, {@link QueueInsights}, {@link QueueAdminRoutes}) and {@link ProjectInsights}.
 *
 * <p>Who sees what: the fleet and the job queues are site-wide and hold no project's data, so every signed-in user
 * sees them (counts, sizes, pauses and their reasons, the autoscaler's actions); a site admin also sees each instance
 * (its agent's name and id), which server leads the autoscaler, and the server's own work queues (depth, dead
 * messages, pause and ramp). A project's insights are for those with a role in its organization, like its pipelines.
 * Thread-safe.
 */
public final class InsightPages {
    /** How many of the autoscaler's latest actions the fleet page lists. */
    static final int EVENTS = 25;

    private final FleetInsights fleet;
    private final QueueInsights queues;
    private final QueueAdminRoutes work;
    private final ProjectInsights insights;

    public InsightPages(FleetInsights fleet, QueueInsights queues, QueueAdminRoutes work, ProjectInsights insights) {
        this.fleet = fleet;
        this.queues = queues;
        this.work = work;
        this.insights = insights;
    }

    /** @param events the autoscaler's latest actions, newest first */
    public record FleetPage(WebUi.Chrome chrome, FleetInsights.Overview fleet, List<FleetEvent> events,
                            boolean admin) {
    }

    /** One row of the job queues: a class in a pool ({@code pool} null for a class with nothing waiting). */
    public record QueueRow(QueueInsights.ClassJson resourceClass, QueueInsights.PoolJson pool, boolean first,
                           int poolsOfClass) {
        /** The reasons as words, most frequent first: "3 no capacity, 1 starting". */
        public String why() {
            if (pool == null) {
                return "";
            }
            return pool.reasons().entrySet().stream()
                    .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                    .map(e -> e.getValue() + " " + Format.status(e.getKey()))
                    .collect(Collectors.joining(", "));
        }

        public Instant pausedAt() {
            return pool == null || pool.pausedAt() == null ? null : Instant.parse(pool.pausedAt());
        }
    }

    /** One of the server's durable work queues; {@code rampUntil} is set while a ramped resume is under way. */
    public record WorkQueue(QueueAdminRoutes.QueueJson queue, Instant rampUntil) {
    }

    public record QueuesPage(WebUi.Chrome chrome, Instant at, List<QueueRow> rows, boolean admin,
                             List<WorkQueue> work) {
    }

    /** A workflow's figures and its two charts; {@code anchor} is its section's id. */
    public record WorkflowCharts(String anchor, ProjectInsights.Workflow workflow, SvgChart successRate,
                                 SvgChart duration) {
    }

    public record InsightsPage(WebUi.Chrome chrome, ProjectSlug slug, ProjectInsights.Report report,
                               List<WorkflowCharts> workflows, List<Integer> windows) {
        /** The branch box's value: empty for every branch. */
        public String branch() {
            return report.branch() == null ? "" : report.branch();
        }
    }

    FleetPage fleet(WebUi.Chrome chrome, Principal caller, Instant now) {
        FleetInsights.Overview overview = fleet.read(now);
        List<FleetEvent> events = overview.events().reversed().stream().limit(EVENTS).toList();
        return new FleetPage(chrome, overview, events, caller.siteAdmin());
    }

    QueuesPage queues(WebUi.Chrome chrome, Principal caller, Instant now) {
        List<QueueRow> rows = new ArrayList<>();
        for (QueueInsights.ClassJson c : queues.read(now).items()) {
            if (c.pools().isEmpty()) {
                rows.add(new QueueRow(c, null, true, 1));
            }
            for (int i = 0; i < c.pools().size(); i++) {
                rows.add(new QueueRow(c, c.pools().get(i), i == 0, c.pools().size()));
            }
        }
        List<WorkQueue> work = !caller.siteAdmin() ? List.of() : this.work.read().items().stream()
                .map(q -> new WorkQueue(q, rampUntil(q.ramp(), now)))
                .toList();
        return new QueuesPage(chrome, now, rows, caller.siteAdmin(), work);
    }

    InsightsPage insights(WebUi.Chrome chrome, ProjectSlug slug, UUID projectId, int days, String branch,
                          Instant now) {
        ProjectInsights.Report report = insights.read(projectId, days, branch, now);
        List<String> labels = report.dates().stream().map(LocalDate::toString).toList();
        List<WorkflowCharts> charts = new ArrayList<>();
        for (ProjectInsights.Workflow w : report.workflows()) {
            charts.add(new WorkflowCharts("workflow-" + (charts.size() + 1), w,
                    SvgChart.of("Success rate of " + w.name() + " per day", labels, List.of(new SvgChart.Series(
                            "success rate", "rate", w.days().stream().map(ProjectInsights.Day::successRate)
                            .toList())), 100.0, v -> Format.percent(v)),
                    SvgChart.of("Duration of successful " + w.name() + " runs per day", labels, List.of(
                            new SvgChart.Series("p50", "p50", w.days().stream().map(d -> millis(d.p50Ms())).toList()),
                            new SvgChart.Series("p95", "p95", w.days().stream().map(d -> millis(d.p95Ms())).toList())),
                            durationTop(w), v -> Format.duration((long) v))));
        }
        return new InsightsPage(chrome, slug, report, charts, ProjectInsights.WINDOWS);
    }

    /** The {@code days} a reader asked for, if it is one of the windows; else the default. */
    static int days(String text) {
        return ProjectInsights.WINDOWS.stream().filter(d -> Integer.toString(d).equals(text)).findFirst()
                .orElse(ProjectInsights.DEFAULT_DAYS);
    }

    /** The duration axis' top: a round number of minutes (or seconds) above the slowest p95, so ticks read well. */
    static Double durationTop(ProjectInsights.Workflow w) {
        long slowest = w.days().stream().map(ProjectInsights.Day::p95Ms).filter(ms -> ms != null)
                .mapToLong(Long::longValue).max().orElse(0);
        long unit = slowest >= 120_000 ? 60_000 : slowest >= 2_000 ? 1_000 : 1;
        return SvgChart.niceCeiling((double) slowest / unit) * unit;
    }

    private static Double millis(Long ms) {
        return ms == null ? null : ms.doubleValue();
    }

    private static Instant rampUntil(QueueAdminRoutes.RampJson ramp, Instant now) {
        if (ramp == null) {
            return null;
        }
        Instant until = Instant.parse(ramp.resumedAt()).plus(Duration.ofSeconds(ramp.overSeconds()));
        return until.isAfter(now) ? until : null;
    }

    /** The event's kind in lower case, as the API writes it: {@code insufficient_capacity}. */
    public static String kind(FleetEvent event) {
        return event.kind().name().toLowerCase(Locale.ROOT);
    }

    /** "2 vCPU · 4 GB" (or MB below a GB). */
    public static String size(int vcpu, long memoryMb) {
        String memory = memoryMb >= 1024 && memoryMb % 1024 == 0 ? memoryMb / 1024 + " GB"
                : memoryMb >= 1024 ? String.format(Locale.ROOT, "%.1f GB", memoryMb / 1024.0) : memoryMb + " MB";
        return vcpu + " vCPU · " + memory;
    }
}
