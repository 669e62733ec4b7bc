package dev.gantry.server.auth;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gantry.server.http.ApiException;
import dev.gantry.server.http.Json;
import dev.gantry.server.http.JsonBody;
import dev.gantry.server.http.JsonFields;
import dev.gantry.server.http.PathParams;
import io.javalin.http.Context;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Users, their tokens and organization memberships (Gantry's own API; CircleCI's server manages these in its UI):
 * {@code /user}, {@code /user/{login}/token}, {@code /organization/{org}/member}. A token's text appears once, in the
 * answer that issues it. Thread-safe.
 */
public final class UserRoutes {
    static final int DEFAULT_TOKEN_DAYS = 90;
    static final int MAX_TOKEN_DAYS = 3650;
    private static final Set<String> USER_FIELDS = Set.of("login", "name", "site_admin");
    private static final Set<String> TOKEN_FIELDS = Set.of("label", "expires_in_days");
    private static final Set<String> MEMBER_FIELDS = Set.of("role");

    private final Users users;

    public UserRoutes(Users users) {
        this.users = users;
    }

    public void create(Context ctx) {
        JsonFields fields = JsonFields.of(JsonBody.readObject(ctx), USER_FIELDS);
        Json.respond(ctx, 201, json(users.create(fields.requiredString("login"),
                fields.optionalString("name").orElse(null), fields.optionalBoolean("site_admin").orElse(false))));
    }

    public void list(Context ctx) {
        Json.respond(ctx, 200, Json.whole(users.list().stream().map(UserRoutes::json).toList()));
    }

    public void issueToken(Context ctx) {
        ObjectNode body = JsonBody.readObjectOrEmpty(ctx);
        JsonFields fields = JsonFields.of(body, TOKEN_FIELDS);
        JsonNode days = body.get("expires_in_days");
        int lifetime = DEFAULT_TOKEN_DAYS;
        if (days != null && !days.isNull()) {
            if (!days.canConvertToInt() || days.asInt() < 1 || days.asInt() > MAX_TOKEN_DAYS) {
                throw ApiException.invalid("expires_in_days", "\"expires_in_days\" is a whole number of days from "
                        + "1 to " + MAX_TOKEN_DAYS);
            }
            lifetime = days.asInt();
        }
        Users.IssuedToken issued = users.issueToken(ctx.pathParam("login"), fields.optionalString("label")
                .orElse(null), Duration.ofDays(lifetime));
        Map<String, Object> json = json(issued.record());
        json.put("token", issued.token());
        Json.respond(ctx, 201, json);
    }

    public void tokens(Context ctx) {
        Json.respond(ctx, 200, Json.whole(users.tokens(ctx.pathParam("login")).stream().map(UserRoutes::json).toList()));
    }

    public void revokeToken(Context ctx) {
        users.revokeToken(ctx.pathParam("login"), PathParams.uuid(ctx, "id"));
        Json.respond(ctx, 200, Map.of("message", "Token revoked."));
    }

    public void putMember(Context ctx) {
        JsonFields fields = JsonFields.of(JsonBody.readObject(ctx), MEMBER_FIELDS);
        String word = fields.requiredString("role");
        Role role = Role.ofWord(word).orElseThrow(() -> ApiException.invalid("role",
                "\"role\" is viewer, member or admin, got " + ApiException.quote(word)));
        users.putMember(ctx.pathParam("org"), ctx.pathParam("login"), role);
        Json.respond(ctx, 200, Map.of("organization", ctx.pathParam("org"), "login", ctx.pathParam("login"),
                "role", role.word()));
    }

    public void members(Context ctx) {
        Json.respond(ctx, 200, Json.whole(users.members(ctx.pathParam("org")).stream().map(m -> Map.of(
                "login", m.login(), "role", m.role())).toList()));
    }

    public void removeMember(Context ctx) {
        users.removeMember(ctx.pathParam("org"), ctx.pathParam("login"));
        Json.respond(ctx, 200, Map.of("message", "Member removed."));
    }

    public void groups(Context ctx) {
        Json.respond(ctx, 200, Json.whole(users.groups(ctx.pathParam("org")).entrySet().stream().map(g -> Map.of(
                "name", g.getKey(), "members", g.getValue())).toList()));
    }

    public void addToGroup(Context ctx) {
        users.addToGroup(ctx.pathParam("org"), ctx.pathParam("group"), ctx.pathParam("login"));
        Json.respond(ctx, 200, Map.of("message", "Added to the group."));
    }

    public void removeFromGroup(Context ctx) {
        users.removeFromGroup(ctx.pathParam("org"), ctx.pathParam("group"), ctx.pathParam("login"));
        Json.respond(ctx, 200, Map.of("message", "Removed from the group."));
    }

    private static Map<String, Object> json(UserDao.User user) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("id", user.id().toString());
        json.put("login", user.login());
        json.put("name", user.name());
        json.put("site_admin", user.siteAdmin());
        json.put("created_at", Json.time(user.createdAt()));
        return json;
    }

    private static Map<String, Object> json(UserDao.Token token) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("id", token.id().toString());
        json.put("label", token.label());
        json.put("created_at", Json.time(token.createdAt()));
        json.put("expires_at", token.expiresAt() == null ? null : Json.time(token.expiresAt()));
        json.put("last_used_at", token.lastUsedAt() == null ? null : Json.time(token.lastUsedAt()));
        json.put("revoked_at", token.revokedAt() == null ? null : Json.time(token.revokedAt()));
        return json;
    }
}
