package dev.gantry.server.notify;

import dev.gantry.server.http.ApiException;
import dev.gantry.server.http.Json;
import java.time.OffsetDateTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jdbi.v3.core.Handle;

/**
 * A delivery with its attempts, oldest first, as the delivery log of a webhook or another destination shows it; and
 * the reading and the redeliver that every channel shares, in the caller's transaction.
 */
record DeliveryLog(NotifyDao.DeliveryRow delivery, List<NotifyDao.AttemptRow> attempts) {
    /** The most deliveries a log shows, newest first. */
    static final int SHOWN = 100;

    /** The latest {@link #SHOWN} deliveries of destination {@code destinationId} of {@code channel}. */
    static List<DeliveryLog> latest(Handle h, String channel, UUID destinationId) {
        NotifyDao dao = h.attach(NotifyDao.class);
        List<NotifyDao.DeliveryRow> rows = dao.deliveriesOf(channel, destinationId, SHOWN);
        List<NotifyDao.AttemptRow> attempts = dao.attemptsOf(rows.stream().map(NotifyDao.DeliveryRow::id)
                .toArray(UUID[]::new));
        return rows.stream().map(r -> new DeliveryLog(r, attempts.stream()
                .filter(a -> a.deliveryId().equals(r.id())).toList())).toList();
    }

    /**
     * Sends delivery {@code deliveryId} of the destination again, now, with a fresh retry window, whatever became of
     * it: its next turn, on the queue group of {@code organization} (and the shard of project {@code projectId}). The receiver gets the same event and delivery id.
     *
     * @throws ApiException 404 when the destination has no such delivery
     */
    static void redeliver(Handle h, DeliveryQueue deliveries, String channel, UUID destinationId, UUID deliveryId,
                          UUID projectId, String organization, OffsetDateTime now) {
        int turn = h.attach(NotifyDao.class).restart(deliveryId, channel, destinationId, now).orElseThrow(() ->
                ApiException.notFound("no delivery " + deliveryId + " of " + channel + " destination "
                        + destinationId));
        deliveries.enqueueAll(h, List.of(new DeliveryQueue.Turn(deliveryId, projectId, turn, null, organization)));
    }

    /** As the API writes it. */
    Map<String, Object> json() {
        NotifyDao.DeliveryRow d = delivery;
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("id", d.id().toString());
        out.put("event_id", d.eventId().toString());
        out.put("event_type", d.type());
        out.put("subject_id", d.subjectId().toString());
        out.put("state", d.state());
        out.put("attempt_count", d.attempts());
        out.put("created_at", time(d.createdAt()));
        out.put("next_attempt_at", time(d.nextAttemptAt()));
        out.put("waiting_reason", d.waitingReason());
        out.put("dead_reason", d.deadReason());
        out.put("delivered_at", time(d.deliveredAt()));
        out.put("attempts", attempts.stream().map(a -> {
            Map<String, Object> attempt = new LinkedHashMap<>();
            attempt.put("number", a.number());
            attempt.put("started_at", time(a.startedAt()));
            attempt.put("duration_ms", a.durationMs());
            attempt.put("status_code", a.statusCode());
            attempt.put("error", a.error());
            return attempt;
        }).toList());
        return out;
    }

    private static String time(OffsetDateTime t) {
        return t == null ? null : Json.time(t.toInstant());
    }
}
