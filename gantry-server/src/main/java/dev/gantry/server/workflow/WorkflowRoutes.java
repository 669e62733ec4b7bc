package dev.gantry.server.workflow;

import dev.gantry.server.http.ApiException;
import dev.gantry.server.http.Json;
import dev.gantry.server.http.ListJson;
import dev.gantry.server.http.PageToken;
import dev.gantry.server.http.PathParams;
import io.javalin.http.Context;
import java.util.Optional;
import java.util.UUID;

/**
 * {@code GET /api/v2/pipeline/{id}/workflow}, {@code GET /api/v2/workflow/{id}} and
 * {@code GET /api/v2/workflow/{id}/job}: 400 for an id that is not a UUID, 404 for an unknown one. Thread-safe.
 */
public final class WorkflowRoutes {
    private final Workflows workflows;

    public WorkflowRoutes(Workflows workflows) {
        this.workflows = workflows;
    }

    /** A page of the pipeline's workflows, newest first. */
    public void listOfPipeline(Context ctx) {
        UUID pipelineId = PathParams.uuid(ctx, "id");
        Workflows.Page<Workflow> page = workflows.ofPipeline(pipelineId, pageToken(ctx))
                .orElseThrow(() -> ApiException.notFound("no pipeline " + pipelineId));
        Json.respond(ctx, 200, new ListJson<>(page.items().stream().map(WorkflowJson::of).toList(),
                page.next().map(PageToken::encode).orElse(null)));
    }

    public void get(Context ctx) {
        Json.respond(ctx, 200, WorkflowJson.of(workflow(ctx)));
    }

    /** A page of the workflow's jobs by number; a job retried after a lost agent is listed once per attempt. */
    public void jobs(Context ctx) {
        Workflow workflow = workflow(ctx);
        Workflows.JobPage jobs = workflows.jobs(workflow.id(), pageToken(ctx));
        Json.respond(ctx, 200, new ListJson<>(jobs.page().items().stream()
                .map(job -> WorkflowJobJson.of(job, jobs.latestAttempts(), workflow.projectSlug())).toList(),
                jobs.page().next().map(PageToken::encode).orElse(null)));
    }

    private Workflow workflow(Context ctx) {
        UUID id = PathParams.uuid(ctx, "id");
        return workflows.find(id).orElseThrow(() -> ApiException.notFound("no workflow " + id));
    }

    private static Optional<String> pageToken(Context ctx) {
        return Optional.ofNullable(ctx.queryParam(PageToken.PARAMETER)).filter(token -> !token.isBlank());
    }
}
