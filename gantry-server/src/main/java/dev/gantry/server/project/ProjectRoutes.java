package dev.gantry.server.project;

import dev.gantry.server.http.ApiException;
import dev.gantry.server.http.Json;
import dev.gantry.server.http.JsonBody;
import dev.gantry.server.http.JsonFields;
import dev.gantry.server.http.ListJson;
import dev.gantry.server.http.PageToken;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.Context;
import java.util.Optional;
import java.util.Set;

/**
 * {@code POST /api/v2/project}, {@code GET /api/v2/project} and {@code GET /api/v2/project/{vcs}/{org}/{name}}.
 * Thread-safe.
 */
public final class ProjectRoutes {
    private final Projects projects;

    public ProjectRoutes(Projects projects) {
        this.projects = projects;
    }

    /** Creates a project: 201 with the project, 400 for a bad body, 409 if its slug is taken. */
    public void create(Context ctx) {
        NewProject request = NewProject.from(JsonFields.of(JsonBody.readObject(ctx), NewProject.FIELDS));
        Json.respond(ctx, 201, ProjectJson.of(projects.create(request)));
    }

    /** The project the path names, or 404. */
    public void get(Context ctx) {
        ProjectSlug slug = slugOf(ctx);
        Project project = projects.find(slug).orElseThrow(() -> unknown(slug.toString()));
        Json.respond(ctx, 200, ProjectJson.of(project));
    }

    /** {@code GET …/settings}: the project's settings, shaped as CircleCI's. */
    public void settings(Context ctx) {
        Json.respond(ctx, 200, ProjectSettings.json(projects.settings(slugOf(ctx), Optional.empty())));
    }

    /** {@code PATCH …/settings} with {@code {"advanced": {"autocancel_builds": true}}}: changes what it names. */
    public void updateSettings(Context ctx) {
        ObjectNode advanced = JsonFields.of(JsonBody.readObject(ctx), Set.of(ProjectSettings.ADVANCED))
                .optionalObject(ProjectSettings.ADVANCED).orElseThrow(() -> ApiException.invalid(
                        ProjectSettings.ADVANCED, "\"" + ProjectSettings.ADVANCED + "\" is required"));
        Optional<Boolean> autoCancel = JsonFields.of(advanced, Set.of(ProjectSettings.AUTOCANCEL_BUILDS))
                .optionalBoolean(ProjectSettings.AUTOCANCEL_BUILDS);
        Json.respond(ctx, 200, ProjectSettings.json(projects.settings(slugOf(ctx), autoCancel)));
    }

    /** A page of projects in slug order; {@code ?page-token=} continues where the previous page ended. */
    public void list(Context ctx) {
        Optional<String> after = Optional.ofNullable(ctx.queryParam(PageToken.PARAMETER)).filter(t -> !t.isBlank());
        Projects.Page page = projects.list(after);
        Json.respond(ctx, 200, new ListJson<>(page.items().stream().map(ProjectJson::of).toList(),
                page.next().map(PageToken::encode).orElse(null)));
    }

    /**
     * The slug in the path parameters {@code vcs}, {@code org} and {@code name}.
     *
     * @throws ApiException 404 when they cannot name a project
     */
    public static ProjectSlug slugOf(Context ctx) {
        String vcs = ctx.pathParam("vcs");
        String organization = ctx.pathParam("org");
        String name = ctx.pathParam("name");
        return ProjectSlug.fromPath(vcs, organization, name)
                .orElseThrow(() -> unknown(vcs + "/" + organization + "/" + name));
    }

    /** 404 for the project {@code slug}. */
    public static ApiException unknown(String slug) {
        String vcs = slug.substring(0, Math.max(0, slug.indexOf('/')));
        return ApiException.notFound("no project " + slug + (vcs.equals(ProjectSlug.VCS)
                || ProjectSlug.VCS_ALIASES.contains(vcs) ? "" : "; Gantry's project slugs start with " + ProjectSlug.VCS
                + "/ (or CircleCI's gh/, github/, gl/, gitlab/, bb/, bitbucket/)"));
    }
}
