package dev.gantry.server.orchestrator;

import dev.gantry.server.http.ApiException;
import dev.gantry.server.http.Json;
import dev.gantry.server.http.JsonBody;
import dev.gantry.server.http.JsonFields;
import io.javalin.http.Context;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * {@code POST /api/v2/workflow/{id}/cancel}, {@code …/rerun} and {@code …/approve/{approval_request_id}}, answered as
 * CircleCI's API v2 answers them: 202 once the change is committed. Thread-safe.
 */
public final class WorkflowCommandRoutes {
    private static final Map<String, String> ACCEPTED = Map.of("message", "Accepted.");

    private final WorkflowCommands commands;

    public WorkflowCommandRoutes(WorkflowCommands commands) {
        this.commands = commands;
    }

    public void cancel(Context ctx) {
        commands.cancel(uuid(ctx, "id", "workflow"));
        Json.respond(ctx, 202, ACCEPTED);
    }

    /** Body {@code {"from_failed": true}} or {@code false}; an empty body reruns all of it. */
    public void rerun(Context ctx) {
        UUID workflowId = uuid(ctx, "id", "workflow");
        boolean fromFailed = false;
        if (ctx.req().getContentLengthLong() != 0) {
            fromFailed = JsonFields.of(JsonBody.readObject(ctx), Set.of("from_failed"))
                    .optionalBoolean("from_failed").orElse(false);
        }
        Json.respond(ctx, 202, Map.of("workflow_id", commands.rerun(workflowId, fromFailed).toString()));
    }

    public void approve(Context ctx) {
        commands.approve(uuid(ctx, "id", "workflow"), uuid(ctx, "approval_request_id", "approval request"));
        Json.respond(ctx, 202, ACCEPTED);
    }

    private static UUID uuid(Context ctx, String parameter, String what) {
        String text = ctx.pathParam(parameter);
        try {
            return UUID.fromString(text);
        } catch (IllegalArgumentException e) {
            throw ApiException.notFound("no " + what + " " + ApiException.quote(text) + "; ids are UUIDs");
        }
    }
}
