package dev.gantry.server.fleet;

import dev.gantry.scheduler.Assignment;
import dev.gantry.scheduler.Decision;
import dev.gantry.scheduler.PendingJob;
import dev.gantry.scheduler.Placement;
import dev.gantry.scheduler.Waiting;
import dev.gantry.server.http.Json;
import io.javalin.http.Context;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.transaction.TransactionIsolationLevel;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.statement.SqlQuery;

/**
 * {@code GET /api/v2/insights/queue}: per resource class, how many tasks are pending and why (the scheduler's reasons,
 * from its decision now), and the waits over the last 15 minutes, hour and day: p50, p95 and max of queued → started
 * for the tasks that started in the window, counting the tasks still pending with their wait so far, so that a class
 * nobody serves shows its growing wait rather than nothing. Thread-safe.
 */
public final class QueueInsights {
    /** The windows the waits are given over, by name. */
    static final Map<String, Duration> WINDOWS = windows();

    private static Map<String, Duration> windows() {
        Map<String, Duration> windows = new LinkedHashMap<>();
        windows.put("last_15m", Duration.ofMinutes(15));
        windows.put("last_1h", Duration.ofHours(1));
        windows.put("last_24h", Duration.ofDays(1));
        return windows;
    }

    interface Dao {
        /** Waits of one class over one window, in milliseconds. */
        record WaitRow(String resourceClass, String window, long jobs, long p50Ms, long p95Ms, long maxMs) {
        }

        @SqlQuery("""
                WITH waits AS (
                    SELECT j.resource_class,
                           coalesce(t.started_at, :now) AS began,
                           extract(epoch FROM coalesce(t.started_at, :now) - t.queued_at) * 1000 AS wait_ms
                    FROM gantry.job_task t
                    JOIN gantry.job j ON j.id = t.job_id
                    WHERE t.started_at > :dayAgo
                       OR (t.status = 'queued' AND j.status IN ('queued', 'running') AND NOT j.cancel_requested)
                )
                SELECT w.resource_class, s.span AS window, count(*) AS jobs,
                       percentile_disc(0.5) WITHIN GROUP (ORDER BY w.wait_ms)::bigint AS p50_ms,
                       percentile_disc(0.95) WITHIN GROUP (ORDER BY w.wait_ms)::bigint AS p95_ms,
                       max(w.wait_ms)::bigint AS max_ms
                FROM waits w
                JOIN unnest(:windows, :spansMs) AS s(span, span_ms)
                  ON w.began > CAST(:now AS timestamptz) - s.span_ms * interval '1 millisecond'
                GROUP BY w.resource_class, s.span
                """)
        @RegisterConstructorMapper(WaitRow.class)
        List<Dao.WaitRow> waits(OffsetDateTime now, OffsetDateTime dayAgo, String[] windows,
                            long[] spansMs);
    }

    /** One window's figures, as the JSON shows them. */
    record WindowJson(long jobs, long p50Ms, long p95Ms, long maxMs) {
    }

    /** One class: pending tasks, why they wait, and its waits per window (a window without a task is left out). */
    record ClassJson(String resourceClass, long pending, Map<String, Long> reasons, Map<String, WindowJson> waits) {
    }

    record InsightsJson(String generatedAt, List<ClassJson> items) {
    }

    private final Jdbi jdbi;
    private final FleetSnapshots snapshots;
    private final InstantSource clock;

    public QueueInsights(Jdbi jdbi, FleetSnapshots snapshots, InstantSource clock) {
        this.jdbi = jdbi;
        this.snapshots = snapshots;
        this.clock = clock;
    }

    public void get(Context ctx) {
        Json.respond(ctx, 200, read(clock.instant()));
    }

    InsightsJson read(Instant now) {
        return jdbi.inTransaction(TransactionIsolationLevel.REPEATABLE_READ, h -> {
            FleetSnapshots.Loaded loaded = snapshots.load(h, now);
            Decision decision = Placement.place(loaded.snapshot());
            List<Dao.WaitRow> waits = h.attach(Dao.class).waits(now.atOffset(ZoneOffset.UTC),
                    now.minus(Duration.ofDays(1)).atOffset(ZoneOffset.UTC), WINDOWS.keySet().toArray(String[]::new),
                    WINDOWS.values().stream().mapToLong(Duration::toMillis).toArray());
            return new InsightsJson(Json.time(now), classes(loaded, decision, waits));
        });
    }

    private static List<ClassJson> classes(FleetSnapshots.Loaded loaded, Decision decision, List<Dao.WaitRow> waits) {
        List<PendingJob> all = new ArrayList<>(loaded.snapshot().pending());
        all.addAll(loaded.paused());
        Map<String, String> classOfJob = all.stream()
                .collect(Collectors.toMap(PendingJob::id, j -> j.resourceClass().name()));
        Map<String, Long> pending = all.stream()
                .collect(Collectors.groupingBy(j -> j.resourceClass().name(), Collectors.counting()));
        Map<String, Map<String, Long>> reasons = new TreeMap<>();
        for (PendingJob j : loaded.paused()) {
            reasons.computeIfAbsent(j.resourceClass().name(), c -> new TreeMap<>()).merge("queue_paused", 1L,
                    Long::sum);
        }
        for (Waiting w : decision.waiting()) {
            reasons.computeIfAbsent(classOfJob.get(w.jobId()), c -> new TreeMap<>())
                    .merge(w.reason().name().toLowerCase(Locale.ROOT), 1L, Long::sum);
        }
        for (Assignment a : decision.assignments()) {
            reasons.computeIfAbsent(classOfJob.get(a.jobId()), c -> new TreeMap<>()).merge("starting", 1L, Long::sum);
        }
        Map<String, Map<String, WindowJson>> byClass = new TreeMap<>();
        for (Dao.WaitRow row : waits) {
            byClass.computeIfAbsent(row.resourceClass(), c -> new LinkedHashMap<>());
        }
        for (String window : WINDOWS.keySet()) { // in window order, whatever order the rows came in
            for (Dao.WaitRow row : waits) {
                if (row.window().equals(window)) {
                    byClass.get(row.resourceClass()).put(window,
                            new WindowJson(row.jobs(), row.p50Ms(), row.p95Ms(), row.maxMs()));
                }
            }
        }
        pending.keySet().forEach(c -> byClass.computeIfAbsent(c, k -> new LinkedHashMap<>()));
        List<ClassJson> items = new ArrayList<>();
        byClass.forEach((c, windows) -> items.add(new ClassJson(c, pending.getOrDefault(c, 0L),
                reasons.getOrDefault(c, Map.of()), windows)));
        return items;
    }
}
