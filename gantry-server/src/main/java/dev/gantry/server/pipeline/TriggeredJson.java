package dev.gantry.server.pipeline;

import dev.gantry.server.http.Json;
import java.util.UUID;

/** The answer to a trigger, as CircleCI's: {@code {"id", "number", "state", "created_at"}}. */
record TriggeredJson(UUID id, long number, String state, String createdAt) {
    static TriggeredJson of(Pipeline pipeline) {
        return new TriggeredJson(pipeline.id(), pipeline.number(), pipeline.state().label(),
                Json.time(pipeline.createdAt()));
    }
}
