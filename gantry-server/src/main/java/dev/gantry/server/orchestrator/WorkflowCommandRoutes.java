package dev.gantry.server.orchestrator;

import dev.gantry.server.auth.ApiAuthentication;
import dev.gantry.server.http.ApiException;
import dev.gantry.server.http.Json;
import dev.gantry.server.http.JsonBody;
import dev.gantry.server.http.JsonFields;
import dev.gantry.server.http.PathParams;
import dev.gantry.server.project.ProjectRoutes;
import dev.gantry.server.project.ProjectSlug;
import io.javalin.http.Context;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * {@code POST /api/v2/workflow/{id}/cancel}, {@code …/rerun} and {@code …/approve/{approval_request_id}}, answered as
 * CircleCI's API v2 answers them: 202 once the change is committed. Thread-safe.
 */
public final class WorkflowCommandRoutes {
    private static final Map<String, String> ACCEPTED = Map.of("message", "Accepted.");
    private static final Set<String> RERUN_FIELDS = Set.of("from_failed", "jobs", "sparse_tree", "enable_ssh");

    private final WorkflowCommands commands;

    public WorkflowCommandRoutes(WorkflowCommands commands) {
        this.commands = commands;
    }

    public void cancel(Context ctx) {
        commands.cancel(uuid(ctx, "id", "workflow"), caller(ctx));
        Json.respond(ctx, 202, ACCEPTED);
    }

    /**
     * CircleCI's body: {@code from_failed}, {@code jobs} (job ids), {@code sparse_tree}, {@code enable_ssh} (refused:
     * Gantry has no SSH reruns); an empty body reruns all of it.
     */
    public void rerun(Context ctx) {
        UUID workflowId = uuid(ctx, "id", "workflow");
        WorkflowCommands.Rerun how = WorkflowCommands.Rerun.ALL;
        if (ctx.req().getContentLengthLong() != 0) {
            JsonFields body = JsonFields.of(JsonBody.readObject(ctx), RERUN_FIELDS);
            if (body.optionalBoolean("enable_ssh").orElse(false)) {
                throw ApiException.invalid("enable_ssh", "Gantry does not rerun with SSH");
            }
            Set<UUID> jobs = new LinkedHashSet<>();
            for (String id : body.optionalStrings("jobs").orElse(List.of())) {
                try {
                    jobs.add(UUID.fromString(id));
                } catch (IllegalArgumentException e) {
                    throw ApiException.invalid("jobs", "job ids are UUIDs, got " + ApiException.quote(id));
                }
            }
            how = new WorkflowCommands.Rerun(body.optionalBoolean("from_failed").orElse(false), jobs,
                    body.optionalBoolean("sparse_tree").orElse(false));
        }
        Json.respond(ctx, 202, Map.of("workflow_id", commands.rerun(workflowId, how, caller(ctx)).toString()));
    }

    /** {@code POST /project/{slug}/job/{number}/cancel}. */
    public void cancelJob(Context ctx) {
        ProjectSlug slug = ProjectRoutes.slugOf(ctx);
        commands.cancelJob(slug.organization(), slug.name(), PathParams.positiveNumber(ctx, "number"),
                caller(ctx));
        Json.respond(ctx, 202, ACCEPTED);
    }

    public void approve(Context ctx) {
        commands.approve(uuid(ctx, "id", "workflow"), uuid(ctx, "approval_request_id", "approval request"),
                caller(ctx));
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

    private static String caller(Context ctx) {
        return ApiAuthentication.principal(ctx).login();
    }
}
