package dev.gantry.server.notify;

import dev.gantry.notify.Rule;
import dev.gantry.notify.email.EmailChannel;
import dev.gantry.notify.slack.SlackChannel;
import dev.gantry.notify.status.CommitStatusChannel;
import dev.gantry.notify.status.Forge;
import dev.gantry.server.auth.Access;
import dev.gantry.server.auth.ApiRoutes;
import dev.gantry.server.http.ApiException;
import dev.gantry.server.http.Json;
import dev.gantry.server.http.JsonBody;
import dev.gantry.server.http.JsonFields;
import dev.gantry.server.project.ProjectRoutes;
import dev.gantry.server.project.ProjectSlug;
import io.javalin.http.Context;
import java.net.URI;
import java.time.OffsetDateTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * A project's notification destinations beside its webhooks (docs/notifications.md):
 * <pre>
 * POST   /api/v2/project/{slug}/notifications        {kind, name, when, branches, budget-alerts, url | recipients |
 *                                                     token, forge, api-url}
 * GET    /api/v2/project/{slug}/notifications
 * GET    /api/v2/project/{slug}/notifications/{id}   PUT (any field but kind)   DELETE
 * GET    /api/v2/project/{slug}/notifications/{id}/deliveries
 * POST   /api/v2/project/{slug}/notifications/{id}/deliveries/{delivery_id}/redeliver
 * </pre>
 * Reads need a viewer of the project's organization, changes and redelivers an admin, as for webhooks. Slack URLs and
 * forge tokens are never in an answer (a Slack destination shows its host). Errors are {@link ApiException}s. Stateless.
 */
public final class DestinationRoutes {
    static final Set<String> FIELDS = Set.of("kind", "name", "when", "branches", "budget-alerts", "url",
            "recipients", "token", "forge", "api-url");
    static final int MAX_RECIPIENTS = 50;
    private static final Pattern ADDRESS = Pattern.compile("[^@\\s<>,;\"]+@[^@\\s<>,;\"]+\\.[^@\\s<>,;\"]+");

    private final Destinations destinations;

    DestinationRoutes(Destinations destinations) {
        this.destinations = destinations;
    }

    /** Adds the routes under {@code project} ({@code /api/v2/project/{vcs}/{org}/{name}}). */
    public void addRoutes(ApiRoutes api, String project, Access.Rule viewer, Access.Rule admin) {
        String all = project + "/notifications";
        String one = all + "/{id}";
        api.post(all, admin, this::create);
        api.get(all, viewer, this::list);
        api.get(one, viewer, ctx -> Json.respond(ctx, 200, json(find(ctx))));
        api.put(one, admin, this::update);
        api.delete(one, admin, ctx -> {
            destinations.delete(find(ctx).id());
            Json.respond(ctx, 200, Map.of("message", "Notification destination deleted."));
        });
        api.get(one + "/deliveries", viewer, ctx -> Json.respond(ctx, 200, Json.whole(
                destinations.deliveries(find(ctx)).stream().map(DeliveryLog::json).toList())));
        api.post(one + "/deliveries/{delivery_id}/redeliver", admin, this::redeliver);
    }

    private void redeliver(Context ctx) {
        DestinationDao.DestinationRow destination = find(ctx);
        UUID delivery = OutboundWebhookRoutes.id(ctx, "delivery_id", "delivery");
        destinations.redeliver(destination, delivery);
        Json.respond(ctx, 202, Map.of("id", delivery.toString(), "state", "pending"));
    }

    private void create(Context ctx) {
        Destinations.ProjectRef project = project(ctx);
        JsonFields body = JsonFields.of(JsonBody.readObject(ctx), FIELDS);
        String kind = body.requiredString("kind");
        Destinations.Spec spec = new Destinations.Spec(kind, OutboundWebhookRoutes.name(body.requiredString("name")),
                kind.equals(SlackChannel.KIND) ? url(body.requiredString("url"), "url") : null,
                kind.equals(EmailChannel.KIND) ? recipients(body.optionalStrings("recipients").orElseThrow(() ->
                        ApiException.invalid("recipients", "\"recipients\" is required: a list of addresses")))
                        : List.of(),
                body.optionalString("forge").map(DestinationRoutes::forge).orElse(null),
                body.optionalString("api-url").map(u -> url(u, "api-url")).orElse(null),
                kind.equals(CommitStatusChannel.KIND) ? token(body.requiredString("token")) : null,
                new Rule(when(body.optionalString("when").orElse("always")),
                        branches(body.optionalStrings("branches").orElse(List.of()))),
                body.optionalBoolean("budget-alerts").orElse(false));
        Json.respond(ctx, 201, json(destinations.create(project.id(), project.vcsUrl(), spec)));
    }

    private void list(Context ctx) {
        Json.respond(ctx, 200, Json.whole(destinations.ofProject(project(ctx).id()).stream()
                .map(DestinationRoutes::json).toList()));
    }

    private void update(Context ctx) {
        Destinations.ProjectRef project = project(ctx);
        DestinationDao.DestinationRow current = find(ctx);
        JsonFields body = JsonFields.of(JsonBody.readObject(ctx), FIELDS);
        if (body.optionalString("kind").filter(k -> !k.equals(current.kind())).isPresent()) {
            throw ApiException.invalid("kind", "a destination's kind cannot change; make another one");
        }
        Optional<String> name = body.optionalString("name").map(OutboundWebhookRoutes::name);
        Optional<URI> url = body.optionalString("url").map(u -> url(u, "url"));
        Optional<List<String>> recipients = body.optionalStrings("recipients").map(DestinationRoutes::recipients);
        Optional<Forge> forge = body.optionalString("forge").map(DestinationRoutes::forge);
        Optional<URI> apiUrl = body.optionalString("api-url").map(u -> url(u, "api-url"));
        Optional<String> token = body.optionalString("token").map(DestinationRoutes::token);
        Optional<Rule.When> when = body.optionalString("when").map(DestinationRoutes::when);
        Optional<List<String>> branches = body.optionalStrings("branches").map(DestinationRoutes::branches);
        Optional<Boolean> budgetAlerts = body.optionalBoolean("budget-alerts");
        Json.respond(ctx, 200, json(destinations.update(current.id(), project.vcsUrl(), spec ->
                new Destinations.Spec(spec.kind(), name.orElse(spec.name()), url.orElse(spec.slackUrl()),
                        recipients.orElse(spec.recipients()), forge.orElse(spec.forge()),
                        apiUrl.orElse(forge.isPresent() ? null : spec.apiUrl()), token.orElse(spec.token()),
                        new Rule(when.orElse(spec.rule().when()), branches.orElse(spec.rule().branches())),
                        budgetAlerts.orElse(spec.budgetAlerts())))));
    }

    /** The destination named by the path, if it is the project's; else 404. */
    private DestinationDao.DestinationRow find(Context ctx) {
        UUID project = project(ctx).id();
        String text = ctx.pathParam("id");
        UUID id;
        try {
            id = UUID.fromString(text);
        } catch (IllegalArgumentException e) {
            throw ApiException.invalid("id", "not a destination id: " + ApiException.quote(text));
        }
        return destinations.find(id).filter(d -> d.projectId().equals(project))
                .orElseThrow(() -> Destinations.unknown(id));
    }

    private Destinations.ProjectRef project(Context ctx) {
        ProjectSlug slug = ProjectRoutes.slugOf(ctx);
        return destinations.project(slug).orElseThrow(() -> ApiException.notFound("no project " + slug));
    }

    private static URI url(String text, String field) {
        try {
            URI url = new URI(text);
            if (url.isAbsolute() && url.getHost() != null && url.getRawUserInfo() == null) {
                return url;
            }
        } catch (java.net.URISyntaxException e) {
            // answered below
        }
        throw ApiException.invalid(field, "\"" + field + "\" must be an absolute http:// or https:// URL with a "
                + "host and no user, got " + ApiException.quote(text));
    }

    private static List<String> recipients(List<String> addresses) {
        if (addresses.isEmpty() || addresses.size() > MAX_RECIPIENTS) {
            throw ApiException.invalid("recipients", "\"recipients\" must hold 1-" + MAX_RECIPIENTS + " addresses");
        }
        for (String address : addresses) {
            if (!ADDRESS.matcher(address).matches()) {
                throw ApiException.invalid("recipients", "not an e-mail address: " + ApiException.quote(address));
            }
        }
        return addresses;
    }

    private static String token(String token) {
        if (token.isBlank() || token.length() > 1000) {
            throw ApiException.invalid("token", "\"token\" must be 1-1000 characters");
        }
        return token;
    }

    private static Forge forge(String word) {
        Forge forge = Forge.ofWord(word);
        if (forge == null) {
            throw ApiException.invalid("forge", "\"forge\" must be github, gitlab or gitea, got "
                    + ApiException.quote(word));
        }
        return forge;
    }

    private static Rule.When when(String word) {
        Rule.When when = Rule.When.ofWord(word);
        if (when == null) {
            throw ApiException.invalid("when", "\"when\" must be always, failure or fixed, got "
                    + ApiException.quote(word));
        }
        return when;
    }

    private static List<String> branches(List<String> patterns) {
        for (String pattern : patterns) {
            if (!Rule.validBranchPattern(pattern)) {
                throw ApiException.invalid("branches", "a branch is a name or glob of 1-200 characters without "
                        + "spaces, got " + ApiException.quote(pattern));
            }
        }
        return patterns;
    }

    static Map<String, Object> json(DestinationDao.DestinationRow d) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("id", d.id().toString());
        out.put("kind", d.kind());
        out.put("name", d.name());
        out.put("when", d.notifyWhen());
        out.put("branches", List.of(d.branches()));
        switch (d.kind()) {
            case SlackChannel.KIND -> out.put("host", d.host());
            case EmailChannel.KIND -> out.put("recipients", List.of(d.recipients()));
            case CommitStatusChannel.KIND -> {
                out.put("forge", d.forge());
                out.put("repository", d.repository());
                out.put("api-url", d.apiUrl());
            }
            default -> { }
        }
        if (!d.kind().equals(CommitStatusChannel.KIND)) {
            out.put("budget-alerts", d.budgetAlerts());
        }
        out.put("created-at", time(d.createdAt()));
        out.put("updated-at", time(d.updatedAt()));
        return out;
    }

    private static String time(OffsetDateTime t) {
        return t == null ? null : Json.time(t.toInstant());
    }
}
