package dev.gantry.server.pipeline;

import dev.gantry.server.http.ApiException;
import dev.gantry.server.http.Json;
import dev.gantry.server.http.JsonBody;
import dev.gantry.server.http.JsonFields;
import dev.gantry.server.project.ProjectRoutes;
import dev.gantry.server.project.ProjectSlug;
import io.javalin.http.Context;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Pattern;

/** {@code POST /api/v2/project/{vcs}/{org}/{name}/pipeline} and {@code GET /api/v2/pipeline/{id}}. Thread-safe. */
public final class PipelineRoutes {
    private static final Pattern UUID_TEXT = Pattern.compile(
            "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");

    private final PipelineTriggers triggers;

    public PipelineRoutes(PipelineTriggers triggers) {
        this.triggers = triggers;
    }

    /**
     * Triggers a pipeline: 201 once it is committed, 200 with the original for a repeated {@code Idempotency-Key},
     * 409 for a key reused with another request, 404 for an unknown project.
     */
    public void trigger(Context ctx) {
        ProjectSlug slug = ProjectRoutes.slugOf(ctx);
        TriggerRequest request = TriggerRequest.from(JsonFields.of(JsonBody.readObject(ctx), TriggerRequest.FIELDS));
        Optional<IdempotencyKey> key = IdempotencyKey.fromHeader(ctx.header(IdempotencyKey.HEADER));
        PipelineTriggers.Triggered triggered = triggers.trigger(slug, request, key);
        Json.respond(ctx, triggered.created() ? 201 : 200, TriggeredJson.of(triggered.pipeline()));
    }

    /** The pipeline the path names, or 404 (also for an id that is not a UUID). */
    public void get(Context ctx) {
        String id = ctx.pathParam("id");
        // UUID.fromString would also take "1-1-1-1-1"; only the canonical form names a pipeline.
        Optional<PipelineView> pipeline = UUID_TEXT.matcher(id).matches() ? triggers.findView(UUID.fromString(id))
                : Optional.empty();
        Json.respond(ctx, 200, PipelineJson.of(pipeline.orElseThrow(() -> ApiException.notFound("no pipeline " + id))));
    }
}
