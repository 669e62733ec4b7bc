package dev.gantry.server.auth;

import dev.gantry.server.http.ApiException;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import java.util.Locale;

/**
 * Lets a request to the agent protocol ({@code /api/agent/v1}) through only with the agent token, as
 * {@code Authorization: Bearer gnt_agent_…}; the admin token is refused here as the agent token is on {@code /api/v2},
 * so a leaked agent token cannot read or change projects. Anything else is a 401 that says what to send. Hashes are
 * compared in constant time. Thread-safe.
 */
public final class AgentAuthentication implements Handler {
    private static final String WHAT_TO_SEND = "send the agent token from $GANTRY_HOME/agent-token as "
            + "'Authorization: Bearer <token>'";

    private final TokenHash agent;

    public AgentAuthentication(TokenHash agent) {
        this.agent = agent;
    }

    @Override
    public void handle(Context ctx) {
        String authorization = ctx.header("Authorization");
        if (authorization == null) {
            throw ApiException.unauthorized("missing agent token; " + WHAT_TO_SEND);
        }
        String[] parts = authorization.strip().split("\\s+", 2);
        if (parts.length != 2 || !parts[0].toLowerCase(Locale.ROOT).equals("bearer")) {
            throw ApiException.unauthorized("the Authorization header must be 'Bearer <token>'; " + WHAT_TO_SEND);
        }
        ApiToken token = ApiToken.parse(parts[1]).orElseThrow(() -> ApiException.unauthorized(
                "malformed agent token (it starts with gnt_agent_); " + WHAT_TO_SEND));
        if (token.kind() != TokenKind.AGENT) {
            throw ApiException.unauthorized("that is the " + token.kind().label() + " token; " + WHAT_TO_SEND);
        }
        if (!agent.matches(token.hash())) {
            throw ApiException.unauthorized("unknown agent token; " + WHAT_TO_SEND);
        }
    }
}
