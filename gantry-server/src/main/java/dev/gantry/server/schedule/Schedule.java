package dev.gantry.server.schedule;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gantry.server.auth.ActorIds;
import dev.gantry.server.http.Json;
import dev.gantry.server.project.ProjectSlug;
import java.time.Instant;
import java.util.Map;
import java.util.SortedMap;
import java.util.UUID;

/**
 * A scheduled pipeline as stored: which project, when ({@link Timetable}, UTC), with what (a branch or tag and
 * pipeline parameters), attributed to whom, and where it stands (the next slot, the last one fired).
 *
 * @param parameters {@code branch} or {@code tag}, and the pipeline parameters, sorted by name
 */
public record Schedule(UUID id, UUID projectId, ProjectSlug project, String name, String description,
                       Timetable timetable, SortedMap<String, Object> parameters, String actor, boolean catchUp,
                       Instant nextRunAt, Instant lastSlot, Instant createdAt, Instant updatedAt) {

    /** The schedule in CircleCI's shape, with Gantry's {@code catch-up} and {@code next-run-at}. */
    public ObjectNode json() {
        ObjectNode json = Json.MAPPER.createObjectNode()
                .put("id", id.toString())
                .put("name", name)
                .put("description", description)
                .put("project-slug", project.toString());
        json.set("timetable", timetable.json());
        json.set("parameters", Json.MAPPER.valueToTree(parameters));
        json.set("actor", Json.MAPPER.valueToTree(Map.of("id", ActorIds.of(actor).toString(), "login", actor, "name", actor)));
        json.put("catch-up", catchUp)
                .put("next-run-at", Json.time(nextRunAt))
                .put("created-at", Json.time(createdAt))
                .put("updated-at", Json.time(updatedAt));
        return json;
    }
}
