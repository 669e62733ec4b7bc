package dev.gantry.server.auth;

import dev.gantry.server.http.ApiException;
import dev.gantry.server.http.Json;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Works out who makes a request under {@code /api/v2}: the admin token (the site admin {@code admin}) or a user's token,
 * in any of the forms CircleCI's API takes: {@code Circle-Token: T}, {@code Authorization: Bearer T}, or basic
 * authentication with the token as the user and no password ({@code curl -u T:}). Anything else is a 401 that says
 * what to send. The admin token is compared with its stored hash in constant time; a user token is looked up by its
 * hash. What the caller may then do is {@link Access}'s to say. Thread-safe.
 */
public final class ApiAuthentication implements Handler {
    public static final String CIRCLE_TOKEN = "Circle-Token";
    /** Paths under the API that carry their own credential: a setup job's continuation key. */
    static final Set<String> OPEN = Set.of("/api/v2/pipeline/continue");
    private static final String PRINCIPAL = "gantry.principal";

    private static final String WHAT_TO_SEND = "send your API token (or the admin token from "
            + "$GANTRY_HOME/admin-token) as '" + CIRCLE_TOKEN + ": <token>', 'Authorization: Bearer <token>' or as the "
            + "basic-auth user (curl -u <token>:)";

    private final TokenHash admin;
    private final Users users;

    public ApiAuthentication(TokenHash admin, Users users) {
        this.admin = admin;
        this.users = users;
    }

    /** {@code GET /api/v2/me}: who the token is, in CircleCI's shape. */
    public void me(Context ctx) {
        Principal caller = principal(ctx);
        Json.respond(ctx, 200, Map.of("id", caller.id().toString(), "login", caller.login(), "name", caller.name()));
    }

    /** The caller {@link #handle} found, or null when there is none (no token yet, or an open path). */
    static Principal caller(Context ctx) {
        return ctx.attribute(PRINCIPAL);
    }

    /** The caller {@link #handle} found; only for requests it let through with a token. */
    public static Principal principal(Context ctx) {
        Principal caller = ctx.attribute(PRINCIPAL);
        if (caller == null) {
            throw new IllegalStateException(ctx.path() + " has no authenticated caller");
        }
        return caller;
    }

    @Override
    public void handle(Context ctx) {
        if (OPEN.contains(ctx.path())) {
            return;
        }
        ctx.attribute(PRINCIPAL, authenticate(presented(ctx)));
    }

    /**
     * Who {@code token} (the admin token or a user's) is.
     *
     * @throws ApiException 401 saying what is wrong, for a malformed, unknown, expired or revoked token, or one of
     *                      another kind
     */
    public Principal authenticate(String token) {
        ApiToken parsed = ApiToken.parse(token).orElseThrow(() -> ApiException.unauthorized(
                "malformed API token (Gantry's tokens start with gnt_user_ or gnt_admin_); " + WHAT_TO_SEND));
        return switch (parsed.kind()) {
            case ADMIN, USER -> byHash(parsed.kind(), parsed.hash()).orElseThrow(() -> ApiException.unauthorized(
                    "unknown, expired or revoked API token; " + WHAT_TO_SEND));
            case AGENT -> throw ApiException.unauthorized("that is the agent token; " + WHAT_TO_SEND);
            case AGENT_KEY -> throw ApiException.unauthorized("that is an agent's credential; " + WHAT_TO_SEND);
        };
    }

    /**
     * Who the admin or user token with {@code hash} is now; empty once it is unknown, expired or revoked (the web
     * UI's sessions keep the hash and ask again on every request, so revoking a token ends its sessions).
     */
    public Optional<Principal> byHash(TokenKind kind, TokenHash hash) {
        return switch (kind) {
            case ADMIN -> admin.matches(hash) ? Optional.of(users.admin()) : Optional.empty();
            case USER -> users.byToken(hash);
            case AGENT, AGENT_KEY -> Optional.empty();
        };
    }

    private static String presented(Context ctx) {
        String circle = ctx.header(CIRCLE_TOKEN);
        if (circle != null) {
            return circle.strip();
        }
        String authorization = ctx.header("Authorization");
        if (authorization == null) {
            throw ApiException.unauthorized("missing API token; " + WHAT_TO_SEND);
        }
        String[] parts = authorization.strip().split("\\s+", 2);
        String scheme = parts[0].toLowerCase(Locale.ROOT);
        if (parts.length == 2 && scheme.equals("bearer")) {
            return parts[1];
        }
        if (parts.length == 2 && scheme.equals("basic")) {
            return basicUser(parts[1]);
        }
        throw ApiException.unauthorized("the Authorization header must be 'Bearer <token>' or 'Basic <base64 of "
                + "token:>'; " + WHAT_TO_SEND);
    }

    /** The user of basic credentials, where CircleCI's clients put the token; a password, if any, is ignored. */
    private static String basicUser(String credentials) {
        String decoded;
        try {
            decoded = new String(Base64.getDecoder().decode(credentials.strip()), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException notBase64) {
            throw ApiException.unauthorized("the basic credentials are not base64; " + WHAT_TO_SEND);
        }
        int colon = decoded.indexOf(':');
        return colon < 0 ? decoded : decoded.substring(0, colon);
    }
}
