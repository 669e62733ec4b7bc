package dev.gantry.server.status;

import dev.gantry.server.fleet.ImagePools;
import dev.gantry.server.plan.PlanBuilder;
import dev.gantry.server.status.Measurements.Count;
import dev.gantry.server.status.Measurements.JobStarts;
import dev.gantry.server.status.Measurements.Traffic;
import dev.gantry.server.status.Measurements.Waits;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jdbi.v3.core.Handle;

/**
 * Reads one evaluation's figures from the rows every server of the database shares, so that every server computes
 * the same page: job waits from {@code gantry.job_task} (queued → started, per resource class and pool), intake from
 * {@code gantry.pipeline} and the trigger routes' counts, API and output error rates from every server's
 * {@code gantry.status_request_count}. Stateless; the caller gives the transaction.
 */
final class SliReader {
    static final String RECENT = "recent";
    static final String LONGER = "longer";
    /**
     * A delivery this long past its due time and not tried is failing: no worker could take it (its queue shard or
     * the database is down), where a working one takes it within seconds, and a busy endpoint shows as its guard's
     * waiting reason instead.
     */
    static final Duration DELIVERY_LATE = Duration.ofMinutes(1);

    private final StatusSettings settings;
    private final ImagePools pools;

    SliReader(StatusSettings settings, ImagePools pools) {
        this.settings = settings;
        this.pools = pools;
    }

    /** The figures as of {@code now}, read in {@code h}'s transaction (one snapshot, for consistent figures). */
    Measurements read(Handle h, Instant now) {
        StatusDao dao = h.attach(StatusDao.class);
        OffsetDateTime at = now.atOffset(ZoneOffset.UTC);
        OffsetDateTime longest = now.minus(settings.longWindow()).atOffset(ZoneOffset.UTC);
        String[] windows = {RECENT, LONGER};
        long[] spans = {settings.shortWindow().toMillis(), settings.longWindow().toMillis()};

        Map<String, Map<String, Count>> requests = new LinkedHashMap<>();
        for (StatusDao.RequestRow r : dao.requests(at, longest, windows, spans)) {
            requests.computeIfAbsent(r.surface(), s -> new LinkedHashMap<>())
                    .put(r.window(), new Count(r.requests(), Math.min(r.errors(), r.requests())));
        }
        Traffic api = traffic(requests.get(RequestCounts.Surface.API.column));
        Traffic output = traffic(requests.get(RequestCounts.Surface.OUTPUT.column));
        Traffic triggers = traffic(requests.get(RequestCounts.Surface.INTAKE.column));

        Map<String, Count> planned = new LinkedHashMap<>();
        for (StatusDao.PipelineRow p : dao.pipelines(at, PlanBuilder.INTERNAL_ERROR, windows, spans)) {
            planned.put(p.window(), new Count(p.created(), p.internalErrors()));
        }
        StatusDao.PendingRow pending = dao.pending(at);
        // A trigger refused with a 5xx never became a pipeline: the events are those plus the pipelines made.
        Measurements.Intake intake = new Measurements.Intake(
                refused(triggers.recent()).plus(planned.getOrDefault(RECENT, Count.NONE)),
                refused(triggers.longer()).plus(planned.getOrDefault(LONGER, Count.NONE)),
                pending.pending(), pending.oldestMs());

        Map<String, Count> deliveries = new LinkedHashMap<>();
        for (StatusDao.DeliveryRow d : dao.deliveries(at, at.minus(DELIVERY_LATE), windows, spans)) {
            deliveries.put(d.window(), new Count(d.deliveries(), d.failing()));
        }
        return new Measurements(now, api, intake, jobStarts(dao, at, longest, windows, spans), output,
                traffic(deliveries));
    }

    private List<JobStarts> jobStarts(StatusDao dao, OffsetDateTime at, OffsetDateTime longest, String[] windows,
                                      long[] spans) {
        List<StatusDao.ExecutorRow> executors = dao.executors(longest);
        String[] types = new String[executors.size()];
        String[] images = new String[executors.size()];
        String[] poolNames = new String[executors.size()];
        for (int i = 0; i < executors.size(); i++) {
            types[i] = executors.get(i).type();
            images[i] = executors.get(i).image();
            poolNames[i] = pools.poolOf(types[i], images[i]);
        }
        Map<List<String>, Map<String, Waits>> byRow = new LinkedHashMap<>();
        for (StatusDao.WaitRow w : dao.waits(at, longest, types, images, poolNames, windows, spans)) {
            byRow.computeIfAbsent(List.of(w.resourceClass(), w.pool()), k -> new LinkedHashMap<>())
                    .put(w.window(), new Waits(w.tasks(), w.waiting(), w.p95Ms(), w.oldestWaitingMs()));
        }
        List<JobStarts> rows = new ArrayList<>();
        byRow.forEach((key, waits) -> rows.add(new JobStarts(key.get(0), key.get(1),
                waits.getOrDefault(RECENT, Waits.NONE), waits.getOrDefault(LONGER, Waits.NONE))));
        return rows;
    }

    private static Traffic traffic(Map<String, Count> windows) {
        if (windows == null) {
            return Traffic.NONE;
        }
        return new Traffic(windows.getOrDefault(RECENT, Count.NONE), windows.getOrDefault(LONGER, Count.NONE));
    }

    /** Only the refused triggers of a trigger count: they are events and bad ones. */
    private static Count refused(Count triggers) {
        return new Count(triggers.bad(), triggers.bad());
    }
}
