package dev.gantry.server.notify;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gantry.notify.Event;
import dev.gantry.server.auth.Access;
import dev.gantry.server.auth.ApiRoutes;
import dev.gantry.server.auth.Role;
import dev.gantry.server.http.ApiException;
import dev.gantry.server.http.Json;
import dev.gantry.server.http.JsonBody;
import dev.gantry.server.http.JsonFields;
import io.javalin.http.Context;
import java.net.URI;
import java.time.OffsetDateTime;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * CircleCI's webhook API (v2, {@code /webhook}), for project webhooks, and Gantry's delivery log beside it:
 * <pre>
 * POST   /api/v2/webhook                      {name, events, url, verify-tls, signing-secret, scope: {id, type}}
 * GET    /api/v2/webhook?scope-id=ID&amp;scope-type=project
 * GET    /api/v2/webhook/{id}       PUT (any of the fields but scope)       DELETE
 * GET    /api/v2/webhook/{id}/deliveries
 * POST   /api/v2/webhook/{id}/deliveries/{delivery_id}/redeliver
 * </pre>
 * Reads need a viewer of the project's organization, changes and redelivers an admin (as CircleCI asks of webhook
 * changes). The signing secret is never in an answer. Stateless over {@link Webhooks}.
 */
public final class OutboundWebhookRoutes {
    static final Set<String> FIELDS = Set.of("name", "events", "url", "verify-tls", "signing-secret", "scope");

    private final Webhooks webhooks;

    public OutboundWebhookRoutes(Webhooks webhooks) {
        this.webhooks = webhooks;
    }

    /** Adds the routes to the API's table, each with its rule. */
    public void addRoutes(ApiRoutes api) {
        String one = "/api/v2/webhook/{id}";
        api.post("/api/v2/webhook", new Access.InOrganization(Role.ADMIN, this::organizationOfNew), this::create);
        api.get("/api/v2/webhook", new Access.InOrganization(Role.VIEWER, this::organizationOfScope), this::list);
        Access.Rule viewer = new Access.InOrganization(Role.VIEWER, this::organizationOfWebhook);
        Access.Rule admin = new Access.InOrganization(Role.ADMIN, this::organizationOfWebhook);
        api.get(one, viewer, this::get);
        api.put(one, admin, this::update);
        api.delete(one, admin, this::delete);
        api.get(one + "/deliveries", viewer, this::deliveries);
        api.post(one + "/deliveries/{delivery_id}/redeliver", admin, this::redeliver);
    }

    private void create(Context ctx) {
        JsonFields body = JsonFields.of(JsonBody.readObject(ctx), FIELDS);
        UUID project = scopeOfNew(body);
        Webhooks.Spec spec = new Webhooks.Spec(name(body.requiredString("name")),
                Webhooks.url(body.requiredString("url")),
                body.optionalBoolean("verify-tls").orElseThrow(() -> ApiException.invalid("verify-tls",
                        "\"verify-tls\" is required: true or false")),
                events(body.optionalStrings("events").orElseThrow(() -> ApiException.invalid("events",
                        "\"events\" is required: a list of workflow-completed and job-completed"))),
                secret(body.requiredString("signing-secret")));
        Json.respond(ctx, 201, json(webhooks.create(project, spec)));
    }

    private void list(Context ctx) {
        UUID project = scopeOfQuery(ctx);
        Json.respond(ctx, 200, Json.whole(webhooks.ofProject(project).stream().map(OutboundWebhookRoutes::json)
                .toList()));
    }

    private void get(Context ctx) {
        UUID id = id(ctx, "id", "webhook");
        Json.respond(ctx, 200, json(webhooks.find(id).orElseThrow(() -> Webhooks.unknown(id))));
    }

    private void update(Context ctx) {
        JsonFields body = JsonFields.of(JsonBody.readObject(ctx), FIELDS);
        if (body.optionalObject("scope").isPresent()) {
            throw ApiException.invalid("scope", "a webhook's scope cannot change; make a webhook in the other project");
        }
        Optional<String> name = body.optionalString("name").map(OutboundWebhookRoutes::name);
        Optional<URI> url = body.optionalString("url").map(Webhooks::url);
        Optional<Boolean> verifyTls = body.optionalBoolean("verify-tls");
        Optional<Set<Event.Type>> events = body.optionalStrings("events").map(OutboundWebhookRoutes::events);
        Optional<String> secret = body.optionalString("signing-secret").map(OutboundWebhookRoutes::secret);
        Json.respond(ctx, 200, json(webhooks.update(id(ctx, "id", "webhook"), spec -> new Webhooks.Spec(
                name.orElse(spec.name()), url.orElse(spec.url()), verifyTls.orElse(spec.verifyTls()),
                events.orElse(spec.events()), secret.orElse(spec.signingSecret())))));
    }

    private void delete(Context ctx) {
        webhooks.delete(id(ctx, "id", "webhook"));
        Json.respond(ctx, 200, Map.of("message", "Webhook deleted."));
    }

    private void deliveries(Context ctx) {
        Json.respond(ctx, 200, Json.whole(webhooks.deliveries(id(ctx, "id", "webhook")).stream()
                .map(DeliveryLog::json).toList()));
    }

    private void redeliver(Context ctx) {
        UUID delivery = id(ctx, "delivery_id", "delivery");
        webhooks.redeliver(id(ctx, "id", "webhook"), delivery);
        Json.respond(ctx, 202, Map.of("id", delivery.toString(), "state", "pending"));
    }

    private Optional<String> organizationOfNew(Context ctx) {
        return webhooks.organizationOfProject(scopeOfNew(JsonFields.of(JsonBody.readObject(ctx), FIELDS)));
    }

    private Optional<String> organizationOfScope(Context ctx) {
        return webhooks.organizationOfProject(scopeOfQuery(ctx));
    }

    private Optional<String> organizationOfWebhook(Context ctx) {
        return webhooks.organizationOfWebhook(id(ctx, "id", "webhook"));
    }

    /** The project of {@code scope: {id, type: "project"}}. */
    private static UUID scopeOfNew(JsonFields body) {
        ObjectNode scope = body.optionalObject("scope").orElseThrow(() -> ApiException.invalid("scope",
                "\"scope\" is required: {\"id\": PROJECT-ID, \"type\": \"project\"}"));
        JsonFields fields = JsonFields.of(scope, Set.of("id", "type"));
        if (!"project".equals(fields.requiredString("type"))) {
            throw ApiException.invalid("scope", "the scope's type must be \"project\"");
        }
        return uuid(fields.requiredString("id"), "scope");
    }

    private static UUID scopeOfQuery(Context ctx) {
        String type = ctx.queryParam("scope-type");
        if (type != null && !type.equals("project")) {
            throw ApiException.invalid("scope-type", "scope-type must be \"project\"");
        }
        String id = ctx.queryParam("scope-id");
        if (id == null) {
            throw ApiException.invalid("scope-id", "scope-id is required: the project's id");
        }
        return uuid(id, "scope-id");
    }

    static String name(String name) {
        if (name.isBlank() || name.length() > 100) {
            throw ApiException.invalid("name", "\"name\" must be 1-100 characters");
        }
        return name;
    }

    private static String secret(String secret) {
        if (secret.isEmpty() || secret.length() > Webhooks.MAX_SECRET_LENGTH) {
            throw ApiException.invalid("signing-secret", "\"signing-secret\" must be 1-" + Webhooks.MAX_SECRET_LENGTH
                    + " characters");
        }
        return secret;
    }

    private static Set<Event.Type> events(List<String> words) {
        Set<Event.Type> events = new LinkedHashSet<>();
        for (String word : words) {
            Event.Type type = Event.Type.ofWord(word);
            if (type == null || !type.forWebhooks()) {
                throw ApiException.invalid("events", "unknown event " + ApiException.quote(word)
                        + "; the events are workflow-completed and job-completed");
            }
            events.add(type);
        }
        if (events.isEmpty()) {
            throw ApiException.invalid("events", "\"events\" must name at least one event");
        }
        return events;
    }

    static UUID id(Context ctx, String param, String what) {
        return uuid(ctx.pathParam(param), what);
    }

    private static UUID uuid(String text, String what) {
        try {
            return UUID.fromString(text);
        } catch (IllegalArgumentException e) {
            throw ApiException.invalid(what, "not a " + what + " id: " + ApiException.quote(text));
        }
    }

    static Map<String, Object> json(NotifyDao.WebhookRow row) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("id", row.id().toString());
        out.put("name", row.name());
        out.put("url", row.url());
        out.put("verify-tls", row.verifyTls());
        out.put("events", List.of(row.events()));
        out.put("scope", Map.of("id", row.projectId().toString(), "type", "project"));
        out.put("created-at", time(row.createdAt()));
        out.put("updated-at", time(row.updatedAt()));
        return out;
    }

    private static String time(OffsetDateTime t) {
        return t == null ? null : Json.time(t.toInstant());
    }
}
