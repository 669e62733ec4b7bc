package dev.gantry.server.fleet;

import dev.gantry.scheduler.fleet.FleetEvent;
import dev.gantry.server.http.Json;
import io.javalin.http.Context;
import java.util.List;
import java.util.Locale;
import org.jdbi.v3.core.Jdbi;

/**
 * {@code GET /api/v2/insights/fleet}: the pools an operator paused, whether the server autoscales, which server of the
 * database leads the autoscaler, the instances it runs with their states, and what the autoscaler did lately (launches, fallbacks past a short type, drains,
 * terminations), oldest first. Thread-safe.
 */
public final class FleetInsights {
    record InstanceJson(String id, String state) {
    }

    record EventJson(String at, String kind, String cluster, String type, String instanceId, String message) {
    }

    record PauseJson(String pool, String pausedAt, String reason) {
    }

    /**
     * @param leader     the server (its instance id) that runs the autoscaler, as last seen; null if none was seen
     * @param thisServer whether that is the server answering
     */
    record FleetJson(List<PauseJson> pausedPools, boolean autoscaling, String leader, boolean thisServer,
                     List<InstanceJson> instances, List<EventJson> events) {
    }

    private final Jdbi jdbi;
    private final Autoscaling autoscaling;

    /** @param autoscaling null when the server does not autoscale */
    public FleetInsights(Jdbi jdbi, Autoscaling autoscaling) {
        this.jdbi = jdbi;
        this.autoscaling = autoscaling;
    }

    public void get(Context ctx) {
        List<PauseJson> paused = jdbi.withExtension(FleetDao.class, FleetDao::pausedPools).stream()
                .map(p -> new PauseJson(p.pool(), Json.time(p.pausedAt()), p.reason())).toList();
        if (autoscaling == null) {
            Json.respond(ctx, 200, new FleetJson(paused, false, null, false, List.of(), List.of()));
            return;
        }
        List<InstanceJson> instances = autoscaling.instances().entrySet().stream()
                .map(e -> new InstanceJson(e.getKey(), e.getValue().name().toLowerCase(Locale.ROOT))).toList();
        List<EventJson> events = autoscaling.recentEvents().stream().map(FleetInsights::json).toList();
        Json.respond(ctx, 200, new FleetJson(paused, true, autoscaling.leader().orElse(null),
                autoscaling.leads(), instances, events));
    }

    private static EventJson json(FleetEvent e) {
        return new EventJson(Json.time(e.at()), e.kind().name().toLowerCase(Locale.ROOT), e.cluster(), e.type(),
                e.instanceId().isEmpty() ? null : e.instanceId(), e.message());
    }
}
