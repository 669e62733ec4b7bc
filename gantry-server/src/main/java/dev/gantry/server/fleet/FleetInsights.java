package dev.gantry.server.fleet;

import dev.gantry.scheduler.fleet.FleetEvent;
import dev.gantry.server.http.Json;
import io.javalin.http.Context;
import java.util.List;
import java.util.Locale;

/**
 * {@code GET /api/v2/insights/fleet}: whether the server autoscales, the instances it runs with their states, and
 * what the autoscaler did lately (launches, fallbacks past a short type, drains, terminations), oldest first.
 * Thread-safe.
 */
public final class FleetInsights {
    record InstanceJson(String id, String state) {
    }

    record EventJson(String at, String kind, String cluster, String type, String instanceId, String message) {
    }

    record FleetJson(boolean autoscaling, List<InstanceJson> instances, List<EventJson> events) {
    }

    private final Autoscaling autoscaling;

    /** @param autoscaling null when the server does not autoscale */
    public FleetInsights(Autoscaling autoscaling) {
        this.autoscaling = autoscaling;
    }

    public void get(Context ctx) {
        if (autoscaling == null) {
            Json.respond(ctx, 200, new FleetJson(false, List.of(), List.of()));
            return;
        }
        List<InstanceJson> instances = autoscaling.instances().entrySet().stream()
                .map(e -> new InstanceJson(e.getKey(), e.getValue().name().toLowerCase(Locale.ROOT))).toList();
        List<EventJson> events = autoscaling.recentEvents().stream().map(FleetInsights::json).toList();
        Json.respond(ctx, 200, new FleetJson(true, instances, events));
    }

    private static EventJson json(FleetEvent e) {
        return new EventJson(Json.time(e.at()), e.kind().name().toLowerCase(Locale.ROOT), e.cluster(), e.type(),
                e.instanceId().isEmpty() ? null : e.instanceId(), e.message());
    }
}
