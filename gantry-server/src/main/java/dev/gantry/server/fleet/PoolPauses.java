package dev.gantry.server.fleet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gantry.scheduler.Instance;
import dev.gantry.server.http.ApiException;
import dev.gantry.server.http.Json;
import dev.gantry.server.http.JsonBody;
import io.javalin.http.Context;
import java.time.InstantSource;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jdbi.v3.core.Jdbi;

/**
 * {@code POST /api/v2/fleet/pools/{pool}/pause} and {@code …/resume}: an operator stops job dispatch to a pool (a
 * provider in trouble, a maintenance) and starts it again. Queued jobs of a paused pool wait with the reason
 * {@code queue_paused}; running ones go on. Pausing a paused pool keeps the first pause; resuming one that is not
 * paused changes nothing. Thread-safe.
 */
public final class PoolPauses {
    private static final int MAX_REASON = 500;

    private final Jdbi jdbi;
    private final InstantSource clock;

    public PoolPauses(Jdbi jdbi, InstantSource clock) {
        this.jdbi = jdbi;
        this.clock = clock;
    }

    /** {@code {"reason": "…"}} (optional) → 200 with the pool's pause. */
    public void pause(Context ctx) {
        String pool = pool(ctx);
        ObjectNode body = ctx.contentLength() > 0 ? JsonBody.readObject(ctx) : Json.MAPPER.createObjectNode();
        JsonNode reasonNode = body.get("reason");
        if (reasonNode != null && !reasonNode.isTextual()) {
            throw ApiException.invalid("reason", "\"reason\" must be text");
        }
        String reason = reasonNode == null || reasonNode.asText().isBlank() ? "paused by an operator"
                : reasonNode.asText().strip();
        if (reason.length() > MAX_REASON) {
            throw ApiException.invalid("reason", "\"reason\" must be at most " + MAX_REASON + " characters");
        }
        FleetDao.PoolPause pause = jdbi.inTransaction(h -> {
            FleetDao dao = h.attach(FleetDao.class);
            dao.pause(pool, clock.instant().truncatedTo(ChronoUnit.MICROS).atOffset(ZoneOffset.UTC), reason);
            return dao.pausedPools().stream().filter(p -> p.pool().equals(pool)).findFirst().orElseThrow();
        });
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("pool", pool);
        answer.put("paused", true);
        answer.put("paused_at", Json.time(pause.pausedAt()));
        answer.put("reason", pause.reason());
        Json.respond(ctx, 200, answer);
    }

    /** → 200 {@code {"pool", "paused": false}}. */
    public void resume(Context ctx) {
        String pool = pool(ctx);
        jdbi.useExtension(FleetDao.class, dao -> dao.resume(pool));
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("pool", pool);
        answer.put("paused", false);
        Json.respond(ctx, 200, answer);
    }

    private static String pool(Context ctx) {
        String pool = ctx.pathParam("pool");
        if (!Instance.POOL_NAME.matcher(pool).matches()) {
            throw ApiException.invalid("pool", "a pool is 1 to 63 lower-case letters, digits, '.', '_' or '-'");
        }
        return pool;
    }
}
