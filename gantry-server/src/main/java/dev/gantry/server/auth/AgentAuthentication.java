package dev.gantry.server.auth;

import dev.gantry.server.http.ApiException;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jdbi.v3.core.Jdbi;

/**
 * Who calls the agent protocol ({@code /api/agent/v1}), as {@code Authorization: Bearer …}. {@code /register} takes
 * a registration token: the server's agent token ({@code $GANTRY_HOME/agent-token}, any pool) or one an organization
 * admin issued for some pools (revocable); registering answers the agent a credential of its own
 * ({@code gnt_agentkey_…}), and every other call must carry it: a claim only for the agent it names, a task call only
 * for a task leased to that agent (403 otherwise). User and admin tokens are refused here, as agent tokens are on
 * {@code /api/v2}. Thread-safe.
 */
public final class AgentAuthentication implements Handler {
    private static final String WHAT_TO_SEND = "register with an agent registration token (the server's "
            + "$GANTRY_HOME/agent-token, or one from POST /api/v2/organization/{org}/agent-token) and send the "
            + "credential the registration answered as 'Authorization: Bearer <credential>'";
    private static final String POOLS = "gantry.agent.pools";
    private static final Pattern CLAIM = Pattern.compile(".*/agents/([^/]+)/claim");
    private static final Pattern TASK = Pattern.compile(".*/tasks/([^/]+)/([0-9]+)(/.*)?");

    /** The pools a registration token allows: null for every pool. */
    public record Registrar(UUID tokenId, List<String> pools) {
    }

    private final TokenHash agentToken;
    private final Jdbi jdbi;

    public AgentAuthentication(TokenHash agentToken, Jdbi jdbi) {
        this.agentToken = agentToken;
        this.jdbi = jdbi;
    }

    @Override
    public void handle(Context ctx) {
        ApiToken token = presented(ctx);
        if (ctx.path().endsWith("/register")) {
            ctx.attribute(POOLS, registrar(token));
            return;
        }
        if (token.kind() != TokenKind.AGENT_KEY) {
            throw ApiException.unauthorized((token.kind() == TokenKind.AGENT ? "a registration token only registers; "
                    : "that is not an agent's credential; ") + WHAT_TO_SEND);
        }
        // One query for both questions: whose credential this is, and, on a task's path, whom the task is leased to.
        Matcher task = TASK.matcher(ctx.path());
        UUID job = task.matches() ? uuidOrNull(task.group(1)) : null;
        int node = job == null ? 0 : Integer.parseInt(task.group(2));
        Caller caller = jdbi.withHandle(h -> h.createQuery("""
                        SELECT a.id AS agent, t.agent_id AS holder FROM gantry.agent a
                        LEFT JOIN gantry.job_task t ON t.job_id = CAST(:job AS uuid) AND t.node_index = :node
                        WHERE a.credential_hash = :hash""")
                .bind("hash", token.hash().bytes()).bind("job", job).bind("node", node)
                .map((rs, c) -> new Caller(rs.getObject("agent", UUID.class), rs.getObject("holder", UUID.class)))
                .findOne()).orElseThrow(() -> ApiException.notFound(
                "no agent has this credential (the agent was removed, or the database is new); register again"));
        Matcher claim = CLAIM.matcher(ctx.path());
        if (claim.matches() && !claim.group(1).equals(caller.agent().toString())) {
            throw ApiException.forbidden("an agent claims for itself only: this credential is agent "
                    + caller.agent() + "'s");
        }
        if (caller.holder() != null && !caller.holder().equals(caller.agent())) {
            throw ApiException.forbidden("task " + task.group(1) + "/" + task.group(2)
                    + " is leased to another agent");
        }
    }

    /** The agent a credential is, and the agent holding the task the path names (null: none, or no task path). */
    private record Caller(UUID agent, UUID holder) {
    }

    /** What the registration token on this request allows, as {@link #handle} found it. */
    public static Registrar registrar(Context ctx) {
        return ctx.attribute(POOLS);
    }

    private Registrar registrar(ApiToken token) {
        if (token.kind() != TokenKind.AGENT) {
            throw ApiException.unauthorized("that is not an agent registration token; " + WHAT_TO_SEND);
        }
        if (agentToken.matches(token.hash())) {
            return new Registrar(null, null);
        }
        return jdbi.withHandle(h -> h.createQuery("""
                        SELECT id, pools FROM gantry.agent_registration_token
                        WHERE token_hash = :hash AND revoked_at IS NULL""").bind("hash", token.hash().bytes())
                .map((rs, c) -> new Registrar(rs.getObject("id", UUID.class),
                        List.of((String[]) rs.getArray("pools").getArray()))).findOne())
                .orElseThrow(() -> ApiException.unauthorized("unknown or revoked agent registration token; "
                        + WHAT_TO_SEND));
    }

    private static UUID uuidOrNull(String text) {
        try {
            return UUID.fromString(text);
        } catch (IllegalArgumentException notAnId) {
            return null; // the route says what is wrong with it
        }
    }

    private static ApiToken presented(Context ctx) {
        String authorization = ctx.header("Authorization");
        if (authorization == null) {
            throw ApiException.unauthorized("missing agent credential; " + WHAT_TO_SEND);
        }
        String[] parts = authorization.strip().split("\\s+", 2);
        if (parts.length != 2 || !parts[0].toLowerCase(Locale.ROOT).equals("bearer")) {
            throw ApiException.unauthorized("the Authorization header must be 'Bearer <token>'; " + WHAT_TO_SEND);
        }
        return ApiToken.parse(parts[1]).orElseThrow(() -> ApiException.unauthorized(
                "malformed agent token (gnt_agent_… to register, gnt_agentkey_… after); " + WHAT_TO_SEND));
    }
}
