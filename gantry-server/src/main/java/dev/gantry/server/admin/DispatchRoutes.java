package dev.gantry.server.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gantry.queue.DatabaseHealth;
import dev.gantry.queue.Ramp;
import dev.gantry.server.dispatch.DispatchGate;
import dev.gantry.server.http.ApiException;
import dev.gantry.server.http.Json;
import dev.gantry.server.http.JsonBody;
import io.javalin.http.Context;
import java.time.Instant;
import java.util.List;

/**
 * Dispatch as an operator sees and steers it, under {@code /api/v2/admin/dispatch}:
 * <ul>
 *   <li>{@code GET}: running, ramping, paused (by itself, on database distress) or held (by an operator), why, and
 *       the signals of the last probe;</li>
 *   <li>{@code POST …/pause} with an optional {@code {"reason": "…"}}: holds job starts, planning and workflow
 *       advances on every server; triggers are still accepted;</li>
 *   <li>{@code POST …/resume} with an optional {@code {"ramp": {"from": 0.1, "over_seconds": 300}}}: ends the hold,
 *       ramping back as given (at once without);</li>
 *   <li>{@code PUT …/ramp} with {@code {"from": 0.1, "over_seconds": 300}}: how the self-pause ramps back.</li>
 * </ul>
 * Each answers dispatch's state afterwards. Thread-safe.
 */
public final class DispatchRoutes {
    private static final int MAX_REASON = 500;

    private final DispatchGate gate;

    public DispatchRoutes(DispatchGate gate) {
        this.gate = gate;
    }

    record SignalsJson(String probedAt, Double commitLatencyMs, Double walBytesPerSecond, Long deadTuples,
                       List<String> distress, String failure) {
    }

    record RampJson(double from, long overSeconds) {
    }

    record DispatchJson(String state, double allowedFraction, String reason, String pausedSince, int selfPauses,
                        SignalsJson signals, RampJson selfRamp, RampJson resumeRamp, String resumedAt) {
    }

    /** {@code GET /api/v2/admin/dispatch}. */
    public void get(Context ctx) {
        Json.respond(ctx, 200, json(gate.state()));
    }

    /** {@code POST /api/v2/admin/dispatch/pause}. */
    public void pause(Context ctx) {
        ObjectNode body = ctx.contentLength() > 0 ? JsonBody.readObject(ctx) : Json.MAPPER.createObjectNode();
        JsonNode reason = body.get("reason");
        if (reason != null && (!reason.isTextual() || reason.asText().length() > MAX_REASON)) {
            throw ApiException.invalid("reason", "\"reason\" must be text of at most " + MAX_REASON + " characters");
        }
        gate.hold(reason == null || reason.asText().isBlank() ? "held by an operator" : reason.asText().strip());
        get(ctx);
    }

    /** {@code POST /api/v2/admin/dispatch/resume}. */
    public void resume(Context ctx) {
        ObjectNode body = ctx.contentLength() > 0 ? JsonBody.readObject(ctx) : Json.MAPPER.createObjectNode();
        gate.resume(QueueAdminRoutes.ramp(body.get("ramp")));
        get(ctx);
    }

    /** {@code PUT /api/v2/admin/dispatch/ramp}. */
    public void ramp(Context ctx) {
        gate.setSelfRamp(QueueAdminRoutes.ramp(JsonBody.readObject(ctx)));
        get(ctx);
    }

    private static DispatchJson json(DispatchGate.State s) {
        DatabaseHealth h = s.seen().health();
        SignalsJson signals = new SignalsJson(time(s.seen().at()),
                h == null ? null : h.commitLatency().toNanos() / 1e6, h == null ? null : h.walBytesPerSecond(),
                h == null ? null : h.deadTuples(), s.seen().distress(), s.seen().failure());
        RampJson resumeRamp = s.control().resumeRampFrom() == null ? null
                : new RampJson(s.control().resumeRampFrom(), s.control().resumeRampSeconds());
        return new DispatchJson(s.state(), s.allowedFraction(), s.reason(), time(s.pausedSince()), s.selfPauses(),
                signals, new RampJson(s.selfRamp().rampFrom(), s.selfRamp().rampOver().toSeconds()), resumeRamp,
                time(s.control().resumedAt()));
    }

    private static String time(Instant at) {
        return at == null ? null : Json.time(at);
    }
}
