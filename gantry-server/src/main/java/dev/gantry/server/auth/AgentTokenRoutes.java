package dev.gantry.server.auth;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gantry.server.http.ApiException;
import dev.gantry.server.http.Json;
import dev.gantry.server.http.JsonBody;
import dev.gantry.server.http.JsonFields;
import dev.gantry.server.http.PathParams;
import io.javalin.http.Context;
import java.security.SecureRandom;
import java.sql.Array;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.InstantSource;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;
import org.jdbi.v3.core.Jdbi;

/**
 * An organization's agent registration tokens: {@code POST /organization/{org}/agent-token} with the pools its agents
 * may serve answers the token once; {@code GET} lists them without it; {@code DELETE …/agent-token/{id}} revokes one,
 * after which no agent registers with it (agents registered before keep their own credentials). Thread-safe.
 */
public final class AgentTokenRoutes {
    private static final Set<String> FIELDS = Set.of("pools", "label");
    /** As {@code dev.gantry.scheduler.Instance.POOL_NAME}: what a pool may be called. */
    private static final Pattern POOL = Pattern.compile("[a-z0-9][a-z0-9._-]{0,62}");

    private final Jdbi jdbi;
    private final InstantSource clock;
    private final SecureRandom random;

    public AgentTokenRoutes(Jdbi jdbi, InstantSource clock, SecureRandom random) {
        this.jdbi = jdbi;
        this.clock = clock;
        this.random = random;
    }

    public void issue(Context ctx) {
        ObjectNode body = JsonBody.readObject(ctx);
        JsonFields fields = JsonFields.of(body, FIELDS);
        JsonNode poolsNode = body.get("pools");
        List<String> pools = new ArrayList<>();
        if (poolsNode == null || !poolsNode.isArray() || poolsNode.isEmpty()) {
            throw ApiException.invalid("pools", "\"pools\" lists the pools its agents may serve, e.g. [\"macos\"]");
        }
        for (JsonNode pool : poolsNode) {
            if (!pool.isTextual() || !POOL.matcher(pool.asText()).matches()) {
                throw ApiException.invalid("pools", "a pool is 1 to 63 lower-case letters, digits, '.', '_' or '-', "
                        + "got " + pool);
            }
            pools.add(pool.asText());
        }
        ApiToken token = ApiToken.generate(TokenKind.AGENT, random);
        UUID id = UUID.randomUUID();
        String label = fields.optionalString("label").filter(l -> !l.isBlank()).orElse("agents");
        jdbi.useHandle(h -> h.createUpdate("""
                        INSERT INTO gantry.agent_registration_token (id, token_hash, organization, pools, label, created_at)
                        VALUES (:id, :hash, :organization, :pools, :label, :now)""")
                .bind("id", id).bind("hash", token.hash().bytes()).bind("organization", ctx.pathParam("org"))
                .bind("pools", pools.toArray(String[]::new)).bind("label", label)
                .bind("now", clock.instant().truncatedTo(ChronoUnit.MICROS).atOffset(ZoneOffset.UTC)).execute());
        Map<String, Object> json = list(ctx.pathParam("org")).stream().filter(t -> t.get("id").equals(id.toString()))
                .findFirst().orElseThrow();
        json.put("token", token.value());
        Json.respond(ctx, 201, json);
    }

    public void list(Context ctx) {
        Json.respond(ctx, 200, Json.whole(list(ctx.pathParam("org"))));
    }

    public void revoke(Context ctx) {
        UUID id = PathParams.uuid(ctx, "id");
        int revoked = jdbi.withHandle(h -> h.createUpdate("""
                        UPDATE gantry.agent_registration_token SET revoked_at = :now
                        WHERE id = :id AND organization = :organization AND revoked_at IS NULL""")
                .bind("now", clock.instant().truncatedTo(ChronoUnit.MICROS).atOffset(ZoneOffset.UTC))
                .bind("id", id).bind("organization", ctx.pathParam("org")).execute());
        if (revoked == 0) {
            throw ApiException.notFound("organization " + ctx.pathParam("org") + " has no live agent token " + id);
        }
        Json.respond(ctx, 200, Map.of("message", "Agent registration token revoked."));
    }

    private List<Map<String, Object>> list(String organization) {
        return jdbi.withHandle(h -> h.createQuery("""
                        SELECT id, pools, label, created_at, revoked_at FROM gantry.agent_registration_token
                        WHERE organization = :organization ORDER BY created_at""").bind("organization", organization)
                .map((rs, c) -> {
                    Map<String, Object> json = new LinkedHashMap<>();
                    json.put("id", rs.getObject("id", UUID.class).toString());
                    json.put("pools", strings(rs.getArray("pools")));
                    json.put("label", rs.getString("label"));
                    json.put("created_at", Json.time(rs.getTimestamp("created_at").toInstant()));
                    Timestamp revoked = rs.getTimestamp("revoked_at");
                    json.put("revoked_at", revoked == null ? null : Json.time(revoked.toInstant()));
                    return json;
                }).list());
    }

    private static List<String> strings(Array array) throws SQLException {
        return List.of((String[]) array.getArray());
    }
}
