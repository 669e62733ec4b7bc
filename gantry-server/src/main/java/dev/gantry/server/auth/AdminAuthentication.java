package dev.gantry.server.auth;

import dev.gantry.server.http.ApiException;
import dev.gantry.server.http.Json;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Lets a request through only with the admin token, in any of the forms CircleCI's API takes: {@code Circle-Token: T},
 * {@code Authorization: Bearer T}, or basic authentication with the token as the user and no password ({@code curl -u
 * T:}); anything else is a 401 that says what to send. The presented token is hashed and
 * compared with the stored hash in constant time. Thread-safe.
 */
public final class AdminAuthentication implements Handler {
    public static final String CIRCLE_TOKEN = "Circle-Token";
    /** The login of the admin token's holder, the one API caller there is. */
    public static final String ADMIN = "admin";
    /** Paths under the API that carry their own credential: a setup job's continuation key. */
    private static final Set<String> OPEN = Set.of("/api/v2/pipeline/continue");

    private static final String WHAT_TO_SEND = "send the admin token from $GANTRY_HOME/admin-token as '"
            + CIRCLE_TOKEN + ": <token>', 'Authorization: Bearer <token>' or as the basic-auth user (curl -u <token>:)";

    private final TokenHash admin;

    public AdminAuthentication(TokenHash admin) {
        this.admin = admin;
    }

    /**
     * {@code GET /api/v2/me}: who the token is, in CircleCI's shape. Until there are users, the admin token is the one
     * user, {@code admin}, with the id {@link ActorIds} derives from that login (the one workflows and jobs show).
     */
    public void me(Context ctx) {
        Json.respond(ctx, 200, Map.of("id", ActorIds.of(ADMIN).toString(), "login", ADMIN,
                "name", "Gantry admin"));
    }

    @Override
    public void handle(Context ctx) {
        if (OPEN.contains(ctx.path())) {
            return;
        }
        ApiToken token = ApiToken.parse(presented(ctx)).orElseThrow(() -> ApiException.unauthorized(
                "malformed API token (Gantry's tokens start with gnt_admin_ or gnt_agent_); " + WHAT_TO_SEND));
        if (token.kind() != TokenKind.ADMIN) {
            throw ApiException.unauthorized("that is the " + token.kind().label() + " token; " + WHAT_TO_SEND);
        }
        if (!admin.matches(token.hash())) {
            throw ApiException.unauthorized("unknown API token; " + WHAT_TO_SEND);
        }
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
