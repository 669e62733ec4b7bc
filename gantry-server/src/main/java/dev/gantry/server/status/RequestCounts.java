package dev.gantry.server.status;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.jdbi.v3.core.Handle;

/**
 * This server's share of the request figures: read from the meters Prometheus scrapes ({@code http.server.requests},
 * by method, route template and status), sorted into {@link Surface}s, and added to this server's rows of
 * {@code gantry.status_request_count} per period, so that the page can sum every server's. Counts the database could
 * not take yet are kept per period until it can (at most {@code keepFor}), so an outage's 5xx land in the periods they
 * happened in. One thread (the evaluation) uses it.
 */
final class RequestCounts {
    /** The meter {@code ServerMetrics} times every request with. */
    static final String METER = "http.server.requests";

    /** What a request counts towards; the API counts every request to {@code /api/…} and {@code /webhooks/…}. */
    enum Surface {
        API("api"), INTAKE("intake"), OUTPUT("output");

        final String column;

        Surface(String column) {
            this.column = column;
        }
    }

    /** The routes that take triggers: the API's, a forge's webhook, and a setup workflow's continuation. */
    static final Set<String> INTAKE_ROUTES = Set.of(
            "POST /api/v2/project/{vcs}/{org}/{name}/pipeline",
            "POST /webhooks/{provider}",
            "POST /api/v2/pipeline/continue");
    /** The routes that write job output (an agent) and read it (a person or the CLI). */
    static final Set<String> OUTPUT_ROUTES = Set.of(
            "POST /api/agent/v1/tasks/{job_id}/{node_index}/output",
            "GET /api/v2/project/{vcs}/{org}/{name}/job/{number}/output");

    /** A period's counts of one surface: requests and those answered 5xx. */
    private record Tally(long requests, long errors) {
        Tally plus(Tally other) {
            return new Tally(requests + other.requests, errors + other.errors);
        }
    }

    private final MeterRegistry meters;
    private final String server;
    private final Duration period;
    private final Duration keepFor;
    private Map<Surface, Tally> lastTotals;
    /** Period start → surface → what is not in the database yet. */
    private final TreeMap<Instant, Map<Surface, Tally>> pending = new TreeMap<>();

    /**
     * @param server  this server's instance id, its rows' key
     * @param period  how long one row counts: the page's windows are whole periods
     * @param keepFor how long counts the database could not take are kept for a later write
     */
    RequestCounts(MeterRegistry meters, String server, Duration period, Duration keepFor) {
        this.meters = meters;
        this.server = server;
        this.period = period;
        this.keepFor = keepFor;
        this.lastTotals = totals(); // what came before this page started is nobody's period
    }

    /** The period for windows of {@code shortWindow}: a fifth of it, whole seconds, from 1 s to a minute. */
    static Duration periodFor(Duration shortWindow) {
        long seconds = Math.max(1, Math.min(60, shortWindow.toSeconds() / 5));
        return Duration.ofSeconds(seconds);
    }

    /** The surfaces a request to {@code route} (its template, as the meter tags it) with {@code method} counts to. */
    static Set<Surface> surfaces(String method, String route) {
        if (!route.startsWith("/api/") && !route.startsWith("/webhooks/")) {
            return Set.of();
        }
        String key = method + " " + route;
        if (INTAKE_ROUTES.contains(key)) {
            return Set.of(Surface.API, Surface.INTAKE);
        }
        if (OUTPUT_ROUTES.contains(key)) {
            return Set.of(Surface.API, Surface.OUTPUT);
        }
        return Set.of(Surface.API);
    }

    /** Adds what the meters counted since the last sample to the period of {@code now}. */
    void sample(Instant now) {
        Map<Surface, Tally> totals = totals();
        Map<Surface, Tally> period = pending.computeIfAbsent(periodStart(now), p -> new EnumMap<>(Surface.class));
        for (Surface s : Surface.values()) {
            Tally total = totals.getOrDefault(s, new Tally(0, 0));
            Tally last = lastTotals.getOrDefault(s, new Tally(0, 0));
            // A meter is never reset while the server runs, so the totals only grow.
            Tally delta = new Tally(Math.max(0, total.requests - last.requests),
                    Math.max(0, total.errors - last.errors));
            period.merge(s, delta, Tally::plus);
        }
        lastTotals = totals;
        pending.headMap(now.minus(keepFor)).clear();
    }

    /**
     * Writes what is pending (at least the current period's rows, so that each evaluation writes: the write is the
     * database's health probe) in {@code h}'s transaction; forgets it once that commits ({@link #written}).
     *
     * @return the periods written, to pass to {@link #written}
     */
    List<Instant> write(Handle h) {
        List<Long> periods = new ArrayList<>();
        List<String> surfaces = new ArrayList<>();
        List<Long> requests = new ArrayList<>();
        List<Long> errors = new ArrayList<>();
        pending.forEach((start, tallies) -> tallies.forEach((surface, tally) -> {
            periods.add(start.toEpochMilli());
            surfaces.add(surface.column);
            requests.add(tally.requests);
            errors.add(Math.min(tally.errors, tally.requests));
        }));
        h.attach(StatusDao.class).addRequests(server, periods.stream().mapToLong(Long::longValue).toArray(),
                surfaces.toArray(String[]::new), requests.stream().mapToLong(Long::longValue).toArray(),
                errors.stream().mapToLong(Long::longValue).toArray());
        return List.copyOf(pending.keySet());
    }

    /** Forgets the periods {@link #write} wrote, once their transaction committed. */
    void written(List<Instant> periods) {
        periods.forEach(pending::remove);
    }

    private Instant periodStart(Instant now) {
        long millis = period.toMillis();
        return Instant.ofEpochMilli(Math.floorDiv(now.toEpochMilli(), millis) * millis);
    }

    private Map<Surface, Tally> totals() {
        Map<Surface, Tally> totals = new EnumMap<>(Surface.class);
        for (Timer timer : meters.find(METER).timers()) {
            String route = timer.getId().getTag("uri");
            String method = timer.getId().getTag("method");
            String status = timer.getId().getTag("status");
            if (route == null || method == null || status == null) {
                continue;
            }
            long count = timer.count();
            Tally tally = new Tally(count, status.startsWith("5") ? count : 0);
            for (Surface s : surfaces(method, route)) {
                totals.merge(s, tally, Tally::plus);
            }
        }
        return totals;
    }
}
