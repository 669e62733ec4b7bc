package dev.gantry.server.pipeline;

import dev.gantry.server.auth.ApiAuthentication;
import dev.gantry.server.http.ApiException;
import dev.gantry.server.http.Json;
import dev.gantry.server.http.JsonBody;
import dev.gantry.server.http.JsonFields;
import dev.gantry.server.http.ListJson;
import dev.gantry.server.http.PageToken;
import dev.gantry.server.http.PathParams;
import dev.gantry.server.project.ProjectRoutes;
import dev.gantry.server.project.ProjectSlug;
import io.javalin.http.Context;
import java.util.Collections;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * {@code POST /api/v2/project/{vcs}/{org}/{name}/pipeline}, the project's pipelines ({@code GET} of the same path,
 * {@code …/pipeline/mine}, {@code …/pipeline/{number}}), {@code GET /api/v2/pipeline/{id}} and
 * {@code GET /api/v2/pipeline/{id}/config}. Thread-safe.
 */
public final class PipelineRoutes {
    private static final Pattern UUID_TEXT = Pattern.compile(
            "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");

    /** The query parameter of {@link #list} that keeps only one branch's pipelines. */
    static final String BRANCH = "branch";

    private final PipelineTriggers triggers;
    private final PipelineReads reads;

    public PipelineRoutes(PipelineTriggers triggers) {
        this.triggers = triggers;
        this.reads = new PipelineReads(triggers.jdbi());
    }

    /**
     * Triggers a pipeline (of the repository's default branch when the body names neither branch nor tag, or there is
     * no body): 201 once it is committed, 200 with the original for a repeated {@code Idempotency-Key},
     * 409 for a key reused with another request, 400 for two keys, 404 for an unknown project.
     */
    public void trigger(Context ctx) {
        ProjectSlug slug = ProjectRoutes.slugOf(ctx);
        // No body, or one without branch and tag, builds the default branch, as on CircleCI.
        TriggerRequest request = TriggerRequest.from(JsonFields.of(JsonBody.readObjectOrEmpty(ctx),
                TriggerRequest.FIELDS));
        // Every line of the header, not the first: two keys are refused, not one of them picked.
        Optional<IdempotencyKey> key = IdempotencyKey.fromHeaders(Collections.list(
                ctx.req().getHeaders(IdempotencyKey.HEADER)));
        PipelineTriggers.Triggered triggered = triggers.trigger(slug, request, key,
                ApiAuthentication.principal(ctx).login());
        Json.respond(ctx, triggered.created() ? 201 : 200, TriggeredJson.of(triggered.pipeline()));
    }

    /** The pipeline the path names, or 404 (also for an id that is not a UUID). */
    public void get(Context ctx) {
        String id = ctx.pathParam("id");
        Optional<PipelineView> pipeline = pipelineId(id).flatMap(triggers::findView);
        Json.respond(ctx, 200, PipelineJson.of(pipeline.orElseThrow(() -> ApiException.notFound("no pipeline " + id))));
    }

    /**
     * {@code GET …/pipeline}: the project's pipelines, newest first, 20 a page ({@code ?page-token=} for the next),
     * only those on {@code ?branch=} if given.
     */
    public void list(Context ctx) {
        respondPage(ctx, reads.list(ProjectRoutes.slugOf(ctx), branchFilter(ctx), null, pageToken(ctx)));
    }

    /**
     * {@code GET …/pipeline/mine}: as {@link #list}, only the pipelines the caller triggered (through the API or a
     * schedule attributed to them).
     */
    public void mine(Context ctx) {
        respondPage(ctx, reads.list(ProjectRoutes.slugOf(ctx), branchFilter(ctx),
                ApiAuthentication.principal(ctx).login(),
                pageToken(ctx)));
    }

    /** {@code GET …/pipeline/{number}}: the project's pipeline by number, or 404. */
    public void byNumber(Context ctx) {
        ProjectSlug slug = ProjectRoutes.slugOf(ctx);
        Json.respond(ctx, 200, PipelineJson.of(reads.byNumber(slug, PathParams.positiveNumber(ctx, "number"))));
    }

    /**
     * {@code GET /api/v2/pipeline/{id}/config}: the config as read ({@code source}) and compiled, for a setup pipeline
     * also its setup config, and the orb versions it compiled with; empty strings for what the pipeline does not have
     * (yet), as CircleCI answers; 404 for an unknown pipeline.
     */
    public void config(Context ctx) {
        String id = ctx.pathParam("id");
        PipelineReads.Config config = pipelineId(id).flatMap(reads::config)
                .orElseThrow(() -> ApiException.notFound("no pipeline " + id));
        Json.respond(ctx, 200, PipelineConfigJson.of(config));
    }

    private static void respondPage(Context ctx, PipelineReads.Page page) {
        Json.respond(ctx, 200, new ListJson<>(page.items().stream().map(PipelineJson::of).toList(),
                page.next().map(PageToken::encode).orElse(null)));
    }

    private static Optional<String> pageToken(Context ctx) {
        return Optional.ofNullable(ctx.queryParam(PageToken.PARAMETER)).filter(t -> !t.isBlank());
    }

    /** {@code ?branch=}, null when absent or empty; 400 for a name that cannot be a branch. */
    private static String branchFilter(Context ctx) {
        String branch = ctx.queryParam(BRANCH);
        if (branch == null || branch.isEmpty()) {
            return null;
        }
        if (!GitRef.validName(branch)) {
            throw ApiException.invalid(BRANCH, "\"" + BRANCH + "\" must be " + GitRef.NAME_RULE + ", got "
                    + ApiException.quote(branch));
        }
        return branch;
    }

    /** The pipeline id {@code text} names; empty for anything but a UUID's canonical form. */
    private static Optional<UUID> pipelineId(String text) {
        // UUID.fromString would also take "1-1-1-1-1"; only the canonical form names a pipeline.
        return UUID_TEXT.matcher(text).matches() ? Optional.of(UUID.fromString(text)) : Optional.empty();
    }
}
