package dev.gantry.server.secret;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gantry.server.http.ApiException;
import dev.gantry.server.http.Json;
import dev.gantry.server.http.JsonBody;
import dev.gantry.server.http.JsonFields;
import dev.gantry.server.http.PathParams;
import dev.gantry.server.project.ProjectRoutes;
import dev.gantry.server.project.ProjectSlug;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * CircleCI's API v2 for secrets: {@code /project/{slug}/envvar[/{name}]} and {@code /context[/{id}[/environment-
 * variable[/{name}]]]}, in its shapes. No answer ever holds a value: a project variable shows its hint, a context
 * variable only its name; {@code masked_in_output} (Gantry's) says whether job output masks it. Thread-safe.
 */
public final class SecretRoutes {
    private static final Set<String> ENV_VAR_FIELDS = Set.of("name", "value");
    private static final Set<String> CONTEXT_FIELDS = Set.of("name", "owner");
    private static final Set<String> CONTEXT_VAR_FIELDS = Set.of("value");

    private final Secrets secrets;
    private final SecretBox box;

    public SecretRoutes(Secrets secrets, SecretBox box) {
        this.secrets = secrets;
        this.box = box;
    }

    /**
     * {@code POST /api/v2/admin/master-key/rotate}: a new master key wraps every data key, and the old keys leave the
     * key file. The server goes on serving throughout; other servers read the file again when they meet the new id.
     */
    public void rotateMasterKey(Context ctx) {
        SecretBox.Rotation rotation = box.rotateMasterKey();
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("master_key_id", rotation.masterKeyId());
        json.put("data_keys_rewrapped", rotation.dataKeys());
        json.put("retired", rotation.retired());
        Json.respond(ctx, 200, json);
    }

    public void createProjectVar(Context ctx) {
        JsonFields fields = JsonFields.of(JsonBody.readObject(ctx), ENV_VAR_FIELDS);
        Json.respond(ctx, 201, json(secrets.putProjectVar(ProjectRoutes.slugOf(ctx), fields.requiredString("name"),
                fields.requiredString("value"))));
    }

    public void listProjectVars(Context ctx) {
        Json.respond(ctx, 200, Json.whole(secrets.projectVars(ProjectRoutes.slugOf(ctx)).stream()
                .map(SecretRoutes::json).toList()));
    }

    public void getProjectVar(Context ctx) {
        Json.respond(ctx, 200, json(secrets.projectVar(ProjectRoutes.slugOf(ctx), ctx.pathParam("envvar"))));
    }

    public void deleteProjectVar(Context ctx) {
        secrets.deleteProjectVar(ProjectRoutes.slugOf(ctx), ctx.pathParam("envvar"));
        Json.respond(ctx, 200, Map.of("message", "Environment variable deleted."));
    }

    public void createContext(Context ctx) {
        JsonFields fields = JsonFields.of(JsonBody.readObject(ctx), CONTEXT_FIELDS);
        Json.respond(ctx, 200, json(secrets.createContext(ownerOrganization(ctx).orElseThrow(),
                fields.requiredString("name"))));
    }

    public void listContexts(Context ctx) {
        Json.respond(ctx, 200, Json.whole(secrets.contexts(ownerOrganization(ctx).orElseThrow()).stream()
                .map(SecretRoutes::json).toList()));
    }

    /**
     * The organization that owns the contexts a request is about: the body's {@code owner} of a {@code POST}, the
     * {@code owner-id} or {@code owner-slug} query parameter of a {@code GET}.
     *
     * @throws ApiException 400 when it names none, 404 for an unknown owner id
     */
    public Optional<String> ownerOrganization(Context ctx) {
        if (ctx.method() == HandlerType.POST) {
            JsonNode owner = JsonBody.readObject(ctx).get("owner");
            if (owner == null || !owner.isObject()) {
                throw ApiException.invalid("owner", "a context needs an \"owner\": {\"slug\": \"gh/ORG\"} or "
                        + "{\"id\": \"ORG-ID\"}, with \"type\": \"organization\"");
            }
            return Optional.of(organization(text(owner, "id"), text(owner, "slug"), text(owner, "type")));
        }
        return Optional.of(organization(ctx.queryParam("owner-id"), ctx.queryParam("owner-slug"),
                ctx.queryParam("owner-type")));
    }

    public void getContext(Context ctx) {
        Json.respond(ctx, 200, json(secrets.context(PathParams.uuid(ctx, "id"))));
    }

    public void deleteContext(Context ctx) {
        secrets.deleteContext(PathParams.uuid(ctx, "id"));
        Json.respond(ctx, 200, Map.of("message", "Context deleted."));
    }

    public void putContextVar(Context ctx) {
        JsonFields fields = JsonFields.of(JsonBody.readObject(ctx), CONTEXT_VAR_FIELDS);
        Json.respond(ctx, 200, json(secrets.putContextVar(PathParams.uuid(ctx, "id"), ctx.pathParam("envvar"),
                fields.requiredString("value"))));
    }

    public void listContextVars(Context ctx) {
        Json.respond(ctx, 200, Json.whole(secrets.contextVars(PathParams.uuid(ctx, "id")).stream()
                .map(SecretRoutes::json).toList()));
    }

    public void deleteContextVar(Context ctx) {
        secrets.deleteContextVar(PathParams.uuid(ctx, "id"), ctx.pathParam("envvar"));
        Json.respond(ctx, 200, Map.of("message", "Environment variable deleted."));
    }

    /** {@code POST /context/{id}/restrictions}: CircleCI's shape, {@code restriction_type} {@code group} only. */
    public void restrict(Context ctx) {
        JsonFields fields = JsonFields.of(JsonBody.readObject(ctx), Set.of("restriction_type", "restriction_value",
                "project_id"));
        String type = fields.requiredString("restriction_type");
        if (!type.equals("group")) {
            throw ApiException.invalid("restriction_type", "Gantry restricts contexts to groups of users: "
                    + "\"restriction_type\" is \"group\", got " + ApiException.quote(type));
        }
        Json.respond(ctx, 201, json(secrets.restrict(PathParams.uuid(ctx, "id"),
                fields.requiredString("restriction_value"))));
    }

    public void restrictions(Context ctx) {
        Json.respond(ctx, 200, Json.whole(secrets.restrictions(PathParams.uuid(ctx, "id")).stream()
                .map(SecretRoutes::json).toList()));
    }

    public void unrestrict(Context ctx) {
        secrets.unrestrict(PathParams.uuid(ctx, "id"), PathParams.uuid(ctx, "restriction_id"));
        Json.respond(ctx, 200, Map.of("message", "Context restriction deleted."));
    }

    /**
     * The organization an owner names: by {@code id} (see {@link ProjectSlug#organizationId}) or by {@code slug}
     * ({@code gh/ORG}, {@code gantry/ORG} or another of CircleCI's VCS names); only organizations own contexts.
     */
    private String organization(String id, String slug, String type) {
        if (type != null && !type.equals("organization")) {
            throw ApiException.invalid("owner-type", "contexts on Gantry belong to organizations; the owner type is "
                    + "\"organization\", got " + ApiException.quote(type));
        }
        if (id != null) {
            try {
                return secrets.organizationWithId(UUID.fromString(id));
            } catch (IllegalArgumentException notAUuid) {
                throw ApiException.invalid("owner-id", "the owner id is an organization's UUID, got "
                        + ApiException.quote(id));
            }
        }
        if (slug != null) {
            String[] parts = slug.split("/", -1);
            if (parts.length == 2 && (parts[0].equals(ProjectSlug.VCS) || ProjectSlug.VCS_ALIASES.contains(parts[0]))
                    && ProjectSlug.validPart(parts[1])) {
                return parts[1];
            }
            throw ApiException.invalid("owner-slug", "the owner slug is VCS/ORG, e.g. gh/acme, got "
                    + ApiException.quote(slug));
        }
        throw ApiException.invalid("owner-slug", "name the contexts' owner: owner-slug (e.g. gh/acme) or owner-id");
    }

    private static String text(JsonNode node, String field) {
        JsonNode value = node.get(field);
        return value == null || value.isNull() ? null : value.asText();
    }

    private static Map<String, Object> json(SecretDao.ProjectVar v) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("name", v.name());
        json.put("value", v.hint());
        json.put("created-at", Json.time(v.createdAt()));
        json.put("masked_in_output", v.masked());
        return json;
    }

    private static Map<String, Object> json(SecretDao.Restriction r) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("id", r.id().toString());
        json.put("context_id", r.contextId().toString());
        json.put("restriction_type", "group");
        json.put("restriction_value", r.groupName());
        json.put("name", r.groupName());
        return json;
    }

    private static Map<String, Object> json(SecretDao.Context c) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("id", c.id().toString());
        json.put("name", c.name());
        json.put("created_at", Json.time(c.createdAt()));
        return json;
    }

    private static Map<String, Object> json(SecretDao.ContextVar v) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("variable", v.name());
        json.put("context_id", v.contextId().toString());
        json.put("created_at", Json.time(v.createdAt()));
        json.put("updated_at", Json.time(v.updatedAt()));
        json.put("masked_in_output", v.masked());
        return json;
    }
}
