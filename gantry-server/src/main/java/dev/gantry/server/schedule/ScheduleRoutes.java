package dev.gantry.server.schedule;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gantry.server.auth.ApiAuthentication;
import dev.gantry.server.http.ApiException;
import dev.gantry.server.http.Json;
import dev.gantry.server.http.JsonBody;
import dev.gantry.server.http.JsonFields;
import dev.gantry.server.http.PathParams;
import dev.gantry.server.project.ProjectRoutes;
import io.javalin.http.Context;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.UUID;

/**
 * CircleCI's schedule API: {@code POST} and {@code GET /project/{slug}/schedule}, {@code GET}, {@code PATCH} and
 * {@code DELETE /schedule/{id}}. A body has {@code name}, {@code description}, {@code timetable} (see
 * {@link Timetable}), {@code parameters} ({@code branch} or {@code tag} and the pipeline parameters),
 * {@code attribution-actor} ({@code current}, the caller, or {@code system}) and Gantry's {@code catch-up} (run the
 * slots missed while no server ran; off by default, as CircleCI skips them). Thread-safe.
 */
public final class ScheduleRoutes {
    private static final Set<String> FIELDS = Set.of("name", "description", "timetable", "parameters",
            "attribution-actor", "catch-up");

    private final Schedules schedules;

    public ScheduleRoutes(Schedules schedules) {
        this.schedules = schedules;
    }

    public void create(Context ctx) {
        ObjectNode body = JsonBody.readObject(ctx);
        JsonFields fields = JsonFields.of(body, FIELDS);
        String caller = ApiAuthentication.principal(ctx).login();
        Schedules.Fields asked = fields(body, fields, caller);
        if (asked.name() == null || asked.timetable() == null || asked.parameters() == null) {
            throw ApiException.invalid(asked.name() == null ? "name" : asked.timetable() == null ? "timetable"
                    : "parameters", "a schedule needs \"name\", \"timetable\" and \"parameters\"");
        }
        Schedules.Fields complete = asked.actor() == null ? new Schedules.Fields(asked.name(), asked.description(),
                asked.timetable(), asked.parameters(), caller, asked.catchUp()) : asked;
        Json.respond(ctx, 201, schedules.create(ProjectRoutes.slugOf(ctx), complete).json());
    }

    public void list(Context ctx) {
        Json.respond(ctx, 200, Json.whole(schedules.list(ProjectRoutes.slugOf(ctx)).stream().map(Schedule::json)
                .toList()));
    }

    public void get(Context ctx) {
        UUID id = PathParams.uuid(ctx, "id");
        Json.respond(ctx, 200, schedules.find(id).orElseThrow(() -> Schedules.unknown(id)).json());
    }

    public void update(Context ctx) {
        ObjectNode body = JsonBody.readObject(ctx);
        Json.respond(ctx, 200, schedules.update(PathParams.uuid(ctx, "id"),
                fields(body, JsonFields.of(body, FIELDS), ApiAuthentication.principal(ctx).login())).json());
    }

    public void delete(Context ctx) {
        schedules.delete(PathParams.uuid(ctx, "id"));
        Json.respond(ctx, 200, Map.of("message", "Schedule deleted."));
    }

    private static Schedules.Fields fields(ObjectNode body, JsonFields fields, String caller) {
        String name = fields.optionalString("name").map(String::strip).orElse(null);
        if (name != null && (name.isEmpty() || name.length() > 200)) {
            throw ApiException.invalid("name", "\"name\" must be 1-200 characters");
        }
        JsonNode timetable = body.get("timetable");
        JsonNode parameters = body.get("parameters");
        SortedMap<String, Object> checked = parameters == null || parameters.isNull() ? null
                : Schedules.checkedParameters(parameters);
        String actor = fields.optionalString("attribution-actor").map(a -> switch (a) {
            case "current" -> caller;
            case "system" -> Schedules.SYSTEM_ACTOR;
            default -> throw ApiException.invalid("attribution-actor", "\"attribution-actor\" is current or system");
        }).orElse(null);
        return new Schedules.Fields(name, fields.optionalString("description").orElse(null),
                timetable == null || timetable.isNull() ? null : Timetable.from(timetable), checked, actor,
                fields.optionalBoolean("catch-up").orElse(null));
    }
}
