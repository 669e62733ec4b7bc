package dev.gantry.server.project;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gantry.server.auth.ApiAuthentication;
import dev.gantry.server.http.ApiException;
import dev.gantry.server.http.Json;
import dev.gantry.server.http.JsonBody;
import dev.gantry.server.http.JsonFields;
import dev.gantry.server.http.ListJson;
import dev.gantry.server.http.PageToken;
import io.javalin.http.Context;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * {@code POST /api/v2/project}, {@code GET /api/v2/project} and {@code GET /api/v2/project/{vcs}/{org}/{name}}.
 * Thread-safe.
 */
public final class ProjectRoutes {
    /** CircleCI's slug prefix for projects named by ids: {@code circleci/<organization-id>/<project-id>}. */
    public static final String CIRCLECI = "circleci";
    private static final String BY_ID = "gantry.project-by-id";

    private static final Pattern SECRET = Pattern.compile("[\\x21-\\x7E]{" + ProjectSettings.SECRET_MIN + ","
            + ProjectSettings.SECRET_MAX + "}");
    private final Projects projects;

    public ProjectRoutes(Projects projects) {
        this.projects = projects;
    }

    /** Creates a project: 201 with the project, 400 for a bad body, 409 if its slug is taken. */
    public void create(Context ctx) {
        NewProject request = NewProject.from(JsonFields.of(JsonBody.readObject(ctx), NewProject.FIELDS));
        Json.respond(ctx, 201, ProjectJson.of(projects.create(request)));
    }

    /** The organization a {@code POST /project} body files the new project under, for its access rule. */
    public Optional<String> organizationOfNew(Context ctx) {
        return Optional.of(NewProject.from(JsonFields.of(JsonBody.readObject(ctx), NewProject.FIELDS)).slug()
                .organization());
    }

    /** The project the path names, or 404. */
    public void get(Context ctx) {
        ProjectSlug slug = slugOf(ctx);
        Project project = projects.find(slug).orElseThrow(() -> unknown(slug.toString()));
        Json.respond(ctx, 200, ProjectJson.of(project));
    }

    /** {@code GET …/settings}: the project's settings, shaped as CircleCI's. */
    public void settings(Context ctx) {
        Json.respond(ctx, 200, ProjectSettings.json(projects.settings(slugOf(ctx), Optional.empty(),
                Optional.empty())));
    }

    /**
     * {@code PATCH …/settings} with {@code {"advanced": {"autocancel_builds": true}}} and/or
     * {@code {"webhook": {"secret": "…"}}} (16-255 printable ASCII characters; null removes it): changes what it
     * names.
     */
    public void updateSettings(Context ctx) {
        JsonFields body = JsonFields.of(JsonBody.readObject(ctx),
                Set.of(ProjectSettings.ADVANCED, ProjectSettings.WEBHOOK));
        Optional<ObjectNode> advanced = body.optionalObject(ProjectSettings.ADVANCED);
        Optional<ObjectNode> webhook = body.optionalObject(ProjectSettings.WEBHOOK);
        if (advanced.isEmpty() && webhook.isEmpty()) {
            throw ApiException.invalid(ProjectSettings.ADVANCED, "\"" + ProjectSettings.ADVANCED + "\" or \""
                    + ProjectSettings.WEBHOOK + "\" is required");
        }
        Optional<Boolean> autoCancel = advanced.flatMap(fields -> JsonFields.of(fields,
                Set.of(ProjectSettings.AUTOCANCEL_BUILDS)).optionalBoolean(ProjectSettings.AUTOCANCEL_BUILDS));
        Optional<Optional<String>> secret = webhook.flatMap(ProjectRoutes::webhookSecret);
        Json.respond(ctx, 200, ProjectSettings.json(projects.settings(slugOf(ctx), autoCancel, secret)));
    }

    /** {@code webhook.secret}: empty when absent, an empty optional for null, else the checked secret. */
    private static Optional<Optional<String>> webhookSecret(ObjectNode webhook) {
        String field = ProjectSettings.WEBHOOK + "." + ProjectSettings.SECRET;
        JsonFields.of(webhook, Set.of(ProjectSettings.SECRET));
        if (!webhook.has(ProjectSettings.SECRET)) {
            return Optional.empty();
        }
        JsonNode value = webhook.get(ProjectSettings.SECRET);
        if (value.isNull()) {
            return Optional.of(Optional.empty());
        }
        if (!value.isTextual() || !SECRET.matcher(value.textValue()).matches()) {
            throw ApiException.invalid(field, "\"" + field + "\" must be " + ProjectSettings.SECRET_MIN + "-"
                    + ProjectSettings.SECRET_MAX + " printable ASCII characters without spaces (e.g. from "
                    + "openssl rand -hex 32), or null to remove it");
        }
        return Optional.of(Optional.of(value.textValue()));
    }

    /** A page of projects in slug order; {@code ?page-token=} continues where the previous page ended. */
    public void list(Context ctx) {
        Optional<String> after = Optional.ofNullable(ctx.queryParam(PageToken.PARAMETER)).filter(t -> !t.isBlank());
        Projects.Page page = projects.list(after, ApiAuthentication.principal(ctx));
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
        ProjectSlug byId = ctx.attribute(BY_ID);
        if (vcs.equals(CIRCLECI) && byId != null) {
            return byId;
        }
        return ProjectSlug.fromPath(vcs, organization, name)
                .orElseThrow(() -> unknown(vcs + "/" + organization + "/" + name));
    }

    /**
     * Before any {@code /api/v2/project/circleci/<organization-id>/<project-id>/…} route: finds the project by its id
     * (and its organization's), as CircleCI's slugs for projects without a VCS name them, for {@link #slugOf}.
     */
    public void resolveById(Context ctx) {
        String[] parts = ctx.path().split("/");
        // "", "api", "v2", "project", "circleci", ORGANIZATION-ID, PROJECT-ID, …
        if (parts.length < 7) {
            return;
        }
        try {
            UUID organizationId = UUID.fromString(parts[5]);
            projects.find(UUID.fromString(parts[6]))
                    .filter(p -> p.slug().organizationId().equals(organizationId))
                    .ifPresent(p -> ctx.attribute(BY_ID, p.slug()));
        } catch (IllegalArgumentException notIds) {
            // not ids: slugOf answers 404 for it
        }
    }

    /** 404 for the project {@code slug}. */
    public static ApiException unknown(String slug) {
        String vcs = slug.substring(0, Math.max(0, slug.indexOf('/')));
        return ApiException.notFound("no project " + slug + (vcs.equals(ProjectSlug.VCS) || vcs.equals(CIRCLECI)
                || ProjectSlug.VCS_ALIASES.contains(vcs) ? "" : "; Gantry's project slugs start with " + ProjectSlug.VCS
                + "/ (or CircleCI's gh/, github/, gl/, gitlab/, bb/, bitbucket/, circleci/ORGANIZATION-ID/PROJECT-ID)"));
    }
}
