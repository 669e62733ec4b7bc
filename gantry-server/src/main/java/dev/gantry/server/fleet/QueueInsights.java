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
 * from its decision now), how long the oldest has waited, the same per pool the tasks run in (with the pool's pause,
 * if an operator paused it), and the waits over the last 15 minutes, hour and day: p50, p95 and max of queued →
 * started for the tasks that started in the window, counting the tasks still pending with their wait so far, so that
 * a class nobody serves shows its growing wait rather than nothing. The web UI's queues page shows the same
 * {@link #read}. Thread-safe.
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
                    WHERE (t.started_at > :dayAgo
                           OR (t.status = 'queued' AND j.status IN ('queued', 'running') AND NOT j.cancel_requested))
                      AND t.carried_from IS NULL -- a retry's carried node waited once, in the attempt that ran it
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
    public record WindowJson(long jobs, long p50Ms, long p95Ms, long maxMs) {
    }

    /**
     * The pending tasks of one class in one pool: how many, how long the oldest has waited, why they wait, and the
     * pool's pause ({@code pausedAt} and {@code pauseReason} null unless an operator paused it).
     */
    public record PoolJson(String pool, long pending, long oldestWaitingMs, Map<String, Long> reasons,
                           String pausedAt, String pauseReason) {
    }

    /**
     * One class: pending tasks, the oldest one's wait so far (0 when none waits), why they wait, the same per pool,
     * and its waits per window (a window without a task is left out).
     */
    public record ClassJson(String resourceClass, long pending, long oldestWaitingMs, Map<String, Long> reasons,
                            List<PoolJson> pools, Map<String, WindowJson> waits) {
        /** The window's figures, or null when no task started or waited in it. */
        public WindowJson window(String name) {
            return waits.get(name);
        }
    }

    public record InsightsJson(String generatedAt, List<ClassJson> items) {
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

    /** The queues at {@code now}, read in one snapshot. */
    public InsightsJson read(Instant now) {
        return jdbi.inTransaction(TransactionIsolationLevel.REPEATABLE_READ, h -> {
            FleetSnapshots.Loaded loaded = snapshots.load(h, now);
            Decision decision = Placement.place(loaded.snapshot());
            List<Dao.WaitRow> waits = h.attach(Dao.class).waits(now.atOffset(ZoneOffset.UTC),
                    now.minus(Duration.ofDays(1)).atOffset(ZoneOffset.UTC), WINDOWS.keySet().toArray(String[]::new),
                    WINDOWS.values().stream().mapToLong(Duration::toMillis).toArray());
            return new InsightsJson(Json.time(now), classes(loaded, decision, waits, now));
        });
    }

    private static List<ClassJson> classes(FleetSnapshots.Loaded loaded, Decision decision, List<Dao.WaitRow> waits,
                                           Instant now) {
        List<PendingJob> all = new ArrayList<>(loaded.snapshot().pending());
        all.addAll(loaded.paused());
        Map<String, PendingJob> byId = all.stream().collect(Collectors.toMap(PendingJob::id, j -> j));
        // Reasons per class and pool: the scheduler's for the jobs it placed or left waiting, queue_paused for the
        // jobs of paused pools (which placement never sees).
        Map<String, Map<String, Map<String, Long>>> reasons = new TreeMap<>();
        for (PendingJob j : loaded.paused()) {
            count(reasons, j, "queue_paused");
        }
        for (Waiting w : decision.waiting()) {
            count(reasons, byId.get(w.jobId()), w.reason().name().toLowerCase(Locale.ROOT));
        }
        for (Assignment a : decision.assignments()) {
            count(reasons, byId.get(a.jobId()), "starting");
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
        Map<String, Map<String, List<PendingJob>>> pending = new TreeMap<>();
        for (PendingJob j : all) {
            pending.computeIfAbsent(j.resourceClass().name(), c -> new TreeMap<>())
                    .computeIfAbsent(j.pool(), p -> new ArrayList<>()).add(j);
        }
        pending.keySet().forEach(c -> byClass.computeIfAbsent(c, k -> new LinkedHashMap<>()));
        List<ClassJson> items = new ArrayList<>();
        byClass.forEach((c, windows) -> {
            List<PoolJson> pools = new ArrayList<>();
            Map<String, Long> classReasons = new TreeMap<>();
            pending.getOrDefault(c, Map.of()).forEach((pool, jobs) -> {
                Map<String, Long> poolReasons = reasons.getOrDefault(c, Map.of()).getOrDefault(pool, Map.of());
                poolReasons.forEach((reason, n) -> classReasons.merge(reason, n, Long::sum));
                FleetDao.PoolPause pause = loaded.pauses().get(pool);
                pools.add(new PoolJson(pool, jobs.size(), oldestWait(jobs, now), poolReasons,
                        pause == null ? null : Json.time(pause.pausedAt()), pause == null ? null : pause.reason()));
            });
            long oldest = pools.stream().mapToLong(PoolJson::oldestWaitingMs).max().orElse(0);
            long count = pools.stream().mapToLong(PoolJson::pending).sum();
            items.add(new ClassJson(c, count, oldest, classReasons, pools, windows));
        });
        return items;
    }

    private static void count(Map<String, Map<String, Map<String, Long>>> reasons, PendingJob job, String reason) {
        reasons.computeIfAbsent(job.resourceClass().name(), c -> new TreeMap<>())
                .computeIfAbsent(job.pool(), p -> new TreeMap<>()).merge(reason, 1L, Long::sum);
    }

    private static long oldestWait(List<PendingJob> jobs, Instant now) {
        return jobs.stream().map(PendingJob::enqueuedAt).min(Instant::compareTo)
                .map(at -> Math.max(0, Duration.between(at, now).toMillis())).orElse(0L);
    }
}
