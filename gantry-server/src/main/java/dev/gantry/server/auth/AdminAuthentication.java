package dev.gantry.server.auth;

import dev.gantry.server.http.ApiException;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import java.util.Locale;

/**
 * Lets a request through only with the admin token, in {@code Circle-Token: T} (as CircleCI's API takes it) or
 * {@code Authorization: Bearer T}; anything else is a 401 that says what to send. The presented token is hashed and
 * compared with the stored hash in constant time. Thread-safe.
 */
public final class AdminAuthentication implements Handler {
    public static final String CIRCLE_TOKEN = "Circle-Token";

    private static final String WHAT_TO_SEND = "send the admin token from $GANTRY_HOME/admin-token as '"
            + CIRCLE_TOKEN + ": <token>' or 'Authorization: Bearer <token>'";

    private final TokenHash admin;

    public AdminAuthentication(TokenHash admin) {
        this.admin = admin;
    }

    @Override
    public void handle(Context ctx) {
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
        if (parts.length != 2 || !parts[0].toLowerCase(Locale.ROOT).equals("bearer")) {
            throw ApiException.unauthorized("the Authorization header must be 'Bearer <token>'; " + WHAT_TO_SEND);
        }
        return parts[1];
    }
}
