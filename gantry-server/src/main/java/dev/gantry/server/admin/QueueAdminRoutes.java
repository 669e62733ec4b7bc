package dev.gantry.server.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gantry.queue.DatabaseHealth;
import dev.gantry.queue.DeadMessage;
import dev.gantry.queue.MessageState;
import dev.gantry.queue.QueueControl;
import dev.gantry.queue.QueueLimits;
import dev.gantry.queue.QueueStats;
import dev.gantry.queue.Queues;
import dev.gantry.queue.Ramp;
import dev.gantry.server.http.ApiException;
import dev.gantry.server.http.Json;
import dev.gantry.server.http.JsonBody;
import dev.gantry.server.http.ListJson;
import dev.gantry.server.http.PathParams;
import io.javalin.http.Context;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The durable queues as an operator sees them (docs/queue.md), under {@code /api/v2/admin}:
 * <ul>
 *   <li>{@code GET queues}: each queue's depth and how it is set, and the database's health;</li>
 *   <li>{@code GET queues/{queue}/dead?limit=N}: its dead messages with the reason each died, the latest first;</li>
 *   <li>{@code POST messages/{id}/replay}: a dead message back to ready;</li>
 *   <li>{@code POST queues/{queue}/pause}, {@code POST queues/{queue}/resume} with an optional
 *       {@code {"ramp": {"from": 0.1, "over_seconds": 300}}}, and {@code PUT queues/{queue}/limits} with
 *       {@code {"max_running": N, "max_per_second": X}} (a missing or null one is unlimited): what the incident's
 *       operators needed to hold a backlog back from a recovering database and let it in gradually.</li>
 * </ul>
 * A change answers with the queue as the list shows it, after the change. Thread-safe.
 */
public final class QueueAdminRoutes {
    static final int DEFAULT_DEAD_LIMIT = 50;
    static final int MAX_DEAD_LIMIT = 1_000;

    private final Queues queues;

    public QueueAdminRoutes(Queues queues) {
        this.queues = queues;
    }

    /** One queue: its depth (zero for one without messages) and its setting. */
    public record QueueJson(String queue, long ready, long running, long dead, long oldestReadyAgeMs, boolean paused,
                     Integer maxRunning, Double maxPerSecond, RampJson ramp) {
    }

    /** The ramp of the queue's last resume, when it had one. */
    public record RampJson(double from, long overSeconds, String resumedAt) {
    }

    public record DatabaseJson(double walBytesPerSecond, long deadTuples, long liveTuples, double commitLatencyMs,
                        List<Integer> liveEpochs) {
    }

    public record QueuesJson(List<QueueJson> items, DatabaseJson database) {
    }

    record DeadJson(long id, String queue, int attempts, String reason, String diedAt, String payload) {
    }

    record ReplayedJson(long id, String state) {
    }

    /** {@code GET /api/v2/admin/queues}. */
    public void list(Context ctx) {
        Json.respond(ctx, 200, read());
    }

    /** Every queue with messages or a setting, by name, and the database's health: the list, as the UI shows it. */
    public QueuesJson read() {
        Map<String, QueueStats> stats = queues.stats().stream()
                .collect(Collectors.toMap(QueueStats::queue, Function.identity()));
        Map<String, QueueControl> controls = queues.controls().stream()
                .collect(Collectors.toMap(QueueControl::queue, Function.identity()));
        Map<String, QueueJson> items = new TreeMap<>();
        stats.keySet().forEach(q -> items.put(q, json(q, stats.get(q), controls.get(q))));
        controls.keySet().forEach(q -> items.computeIfAbsent(q, name -> json(name, null, controls.get(name))));
        DatabaseHealth health = queues.health();
        return new QueuesJson(List.copyOf(items.values()), new DatabaseJson(
                health.walBytesPerSecond(), health.deadTuples(), health.liveTuples(),
                health.commitLatency().toNanos() / 1e6, queues.liveEpochs()));
    }

    /** {@code GET /api/v2/admin/queues/{queue}/dead}. */
    public void dead(Context ctx) {
        String queue = queue(ctx);
        int limit = limit(ctx.queryParam("limit"));
        List<DeadJson> items = queues.dead(queue, limit).stream().map(QueueAdminRoutes::json).toList();
        Json.respond(ctx, 200, new ListJson<>(items, null));
    }

    /** {@code POST /api/v2/admin/messages/{id}/replay}: 200, 404 for an unknown message, 409 for one not dead. */
    public void replay(Context ctx) {
        long id = PathParams.positiveNumber(ctx, "id");
        if (!queues.replay(id)) {
            Optional<MessageState> state = queues.state(id);
            throw state.isPresent()
                    ? ApiException.conflict("message " + id + " is " + name(state.get()) + ", not dead")
                    : ApiException.notFound("no message " + id + " (never enqueued, or past retention)");
        }
        Json.respond(ctx, 200, new ReplayedJson(id, name(MessageState.READY)));
    }

    /** {@code POST /api/v2/admin/queues/{queue}/pause}: claims stop; enqueues go on. */
    public void pause(Context ctx) {
        String queue = queue(ctx);
        queues.pause(queue);
        respondWithSetting(ctx, queue);
    }

    /** {@code POST /api/v2/admin/queues/{queue}/resume}: 409 for a ramp on a queue without limits to scale. */
    public void resume(Context ctx) {
        String queue = queue(ctx);
        ObjectNode body = ctx.contentLength() > 0 ? JsonBody.readObject(ctx) : Json.MAPPER.createObjectNode();
        Ramp ramp = ramp(body.get("ramp"));
        try {
            queues.resume(queue, ramp);
        } catch (IllegalArgumentException noLimits) {
            throw ApiException.conflict(noLimits.getMessage());
        }
        respondWithSetting(ctx, queue);
    }

    /** {@code PUT /api/v2/admin/queues/{queue}/limits}. */
    public void limits(Context ctx) {
        String queue = queue(ctx);
        ObjectNode body = JsonBody.readObject(ctx);
        Integer maxRunning = number(body, "max_running", true).map(Number::intValue).orElse(null);
        Double maxPerSecond = number(body, "max_per_second", false).map(Number::doubleValue).orElse(null);
        QueueLimits limits;
        try {
            limits = new QueueLimits(maxRunning, maxPerSecond);
        } catch (IllegalArgumentException outOfRange) {
            throw ApiException.invalid(maxRunning != null && maxRunning < 1 ? "max_running" : "max_per_second",
                    outOfRange.getMessage());
        }
        queues.limit(queue, limits);
        respondWithSetting(ctx, queue);
    }

    private void respondWithSetting(Context ctx, String queue) {
        QueueControl control = queues.controls().stream().filter(c -> c.queue().equals(queue)).findFirst()
                .orElseThrow();
        QueueStats stats = queues.stats().stream().filter(q -> q.queue().equals(queue)).findFirst().orElse(null);
        Json.respond(ctx, 200, json(queue, stats, control));
    }

    /** {@code stats} and {@code control} may be null: a queue without messages, or one nobody has set. */
    private static QueueJson json(String queue, QueueStats stats, QueueControl control) {
        QueueStats depth = stats != null ? stats : new QueueStats(queue, 0, 0, 0, Duration.ZERO);
        QueueControl set = control != null ? control
                : new QueueControl(queue, false, QueueLimits.NONE, Ramp.NONE, Optional.empty());
        RampJson ramp = set.ramp().equals(Ramp.NONE) || set.resumedAt().isEmpty() ? null
                : new RampJson(set.ramp().from(), set.ramp().over().toSeconds(), Json.time(set.resumedAt().get()));
        return new QueueJson(queue, depth.ready(), depth.running(), depth.dead(), depth.oldestReadyAge().toMillis(),
                set.paused(), set.limits().maxRunning(), set.limits().maxPerSecond(), ramp);
    }

    private static DeadJson json(DeadMessage m) {
        return new DeadJson(m.id(), m.queue(), m.attempts(), m.reason(), Json.time(m.diedAt()), m.payload());
    }

    private static String name(MessageState state) {
        return state.name().toLowerCase(Locale.ROOT);
    }

    private static String queue(Context ctx) {
        String queue = ctx.pathParam("queue");
        try {
            Queues.checkName(queue);
        } catch (IllegalArgumentException bad) {
            throw ApiException.invalid("queue", bad.getMessage());
        }
        return queue;
    }

    private static int limit(String text) {
        if (text == null) {
            return DEFAULT_DEAD_LIMIT;
        }
        try {
            int limit = Integer.parseInt(text);
            if (limit >= 1 && limit <= MAX_DEAD_LIMIT) {
                return limit;
            }
        } catch (NumberFormatException notANumber) {
            // answered below
        }
        throw ApiException.invalid("limit", "\"limit\" must be a whole number from 1 to " + MAX_DEAD_LIMIT
                + ", got " + ApiException.quote(text));
    }

    static Ramp ramp(JsonNode node) {
        if (node == null || node.isNull()) {
            return Ramp.NONE;
        }
        JsonNode over = node.path("over_seconds");
        if (!node.isObject() || !node.path("from").isNumber() || !over.isIntegralNumber() || !over.canConvertToInt()) {
            throw ApiException.invalid("ramp", "\"ramp\" must be {\"from\": a fraction in (0, 1], "
                    + "\"over_seconds\": a whole number of seconds up to " + Ramp.MAX_OVER.toSeconds() + "}");
        }
        try {
            return new Ramp(node.get("from").asDouble(), Duration.ofSeconds(over.intValue()));
        } catch (IllegalArgumentException outOfRange) {
            throw ApiException.invalid("ramp", outOfRange.getMessage());
        }
    }

    /** The field as a number, empty when missing or null. */
    private static Optional<Number> number(ObjectNode body, String field, boolean whole) {
        JsonNode node = body.get(field);
        if (node == null || node.isNull()) {
            return Optional.empty();
        }
        if (whole ? !node.isIntegralNumber() || !node.canConvertToInt() : !node.isNumber()) {
            throw ApiException.invalid(field, "\"" + field + "\" must be " + (whole ? "a whole number" : "a number")
                    + " or null (unlimited)");
        }
        return Optional.of(node.numberValue());
    }
}
