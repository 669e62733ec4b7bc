package dev.gantry.server.notify;

import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

/**
 * The statements on webhooks, and on the events, deliveries and attempts of every channel (V0027); all in the
 * caller's transaction.
 */
@RegisterConstructorMapper(NotifyDao.WebhookRow.class)
@RegisterConstructorMapper(NotifyDao.DueDelivery.class)
@RegisterConstructorMapper(NotifyDao.DeliveryRow.class)
@RegisterConstructorMapper(NotifyDao.AttemptRow.class)
@RegisterConstructorMapper(NotifyDao.NewDelivery.class)
@RegisterConstructorMapper(NotifyDao.RelayRow.class)
interface NotifyDao {

    /** A webhook as stored; its secret still sealed. */
    record WebhookRow(UUID id, UUID projectId, String name, String url, boolean verifyTls, String[] events,
                      byte[] signingSecret, UUID signingSecretKey, OffsetDateTime createdAt,
                      OffsetDateTime updatedAt) {
    }

    @SqlUpdate("""
            INSERT INTO gantry.webhook (id, project_id, name, url, verify_tls, events, signing_secret,
                                        signing_secret_key, created_at, updated_at)
            VALUES (:id, :projectId, :name, :url, :verifyTls, :events, :signingSecret, :signingSecretKey, :now, :now)
            """)
    void insertWebhook(UUID id, UUID projectId, String name, String url, boolean verifyTls, String[] events,
                       byte[] signingSecret, UUID signingSecretKey, OffsetDateTime now);

    @SqlUpdate("""
            UPDATE gantry.webhook
            SET name = :name, url = :url, verify_tls = :verifyTls, events = :events, signing_secret = :signingSecret,
                signing_secret_key = :signingSecretKey, updated_at = :now
            WHERE id = :id
            """)
    int updateWebhook(UUID id, String name, String url, boolean verifyTls, String[] events, byte[] signingSecret,
                      UUID signingSecretKey, OffsetDateTime now);

    @SqlQuery("SELECT * FROM gantry.webhook WHERE id = :id")
    Optional<WebhookRow> webhook(UUID id);

    /** The webhook, locked until the transaction ends: changes take turns. */
    @SqlQuery("SELECT * FROM gantry.webhook WHERE id = :id FOR UPDATE")
    Optional<WebhookRow> lockWebhook(UUID id);

    @SqlQuery("SELECT * FROM gantry.webhook WHERE project_id = :projectId ORDER BY created_at, id")
    List<WebhookRow> webhooksOf(UUID projectId);

    @SqlQuery("SELECT count(*) FROM gantry.webhook WHERE project_id = :projectId")
    int countOf(UUID projectId);

    /** Removes the webhook with its deliveries (their attempts go with them). */
    @SqlUpdate("""
            WITH gone AS (DELETE FROM gantry.notify_delivery WHERE channel = 'webhook' AND destination_id = :id)
            DELETE FROM gantry.webhook WHERE id = :id
            """)
    int deleteWebhook(UUID id);

    /**
     * Records the event once; empty when the change was recorded before (a repeated transaction). {@code projectId}
     * is null for an organization's event (a budget alert).
     */
    @SqlQuery("""
            INSERT INTO gantry.notify_event (id, type, subject_id, project_id, happened_at, snapshot)
            VALUES (:id, :type, :subjectId, CAST(:projectId AS uuid), :happenedAt, CAST(:snapshot AS jsonb))
            ON CONFLICT ON CONSTRAINT notify_event_once DO NOTHING
            RETURNING id
            """)
    Optional<UUID> insertEvent(UUID id, String type, UUID subjectId, UUID projectId, OffsetDateTime happenedAt,
                               String snapshot);

    /** A delivery just made, for its queue message. */
    record NewDelivery(UUID id, UUID destinationId) {
    }

    /** One pending delivery of the event to each of the project's webhooks that asked for its type. */
    @SqlQuery("""
            INSERT INTO gantry.notify_delivery (id, channel, destination_id, event_id, state, window_started_at,
                                                next_attempt_at, created_at)
            SELECT gen_random_uuid(), 'webhook', h.id, :eventId, 'pending', :now, :now, :now
            FROM gantry.webhook h
            WHERE h.project_id = :projectId AND :type = ANY (h.events)
            ON CONFLICT ON CONSTRAINT notify_delivery_once DO NOTHING
            RETURNING id, destination_id
            """)
    List<NewDelivery> insertDeliveries(UUID eventId, UUID projectId, String type, OffsetDateTime now);

    /** A delivery whose turn a queue message holds, with what sending it needs. */
    record DueDelivery(UUID id, String channel, UUID destinationId, int attempts, int turn, OffsetDateTime windowStartedAt,
                       UUID eventId, UUID projectId, String type, UUID subjectId, OffsetDateTime happenedAt,
                       String snapshot) {
    }

    /** The pending delivery {@code id} if {@code turn} is still its turn; else empty, and the message is stale. */
    @SqlQuery("""
            SELECT d.id, d.channel, d.destination_id, d.attempts, d.turn, d.window_started_at, e.id AS event_id,
                   e.project_id, e.type, e.subject_id, e.happened_at, e.snapshot::text AS snapshot
            FROM gantry.notify_delivery d
            JOIN gantry.notify_event e ON e.id = d.event_id
            WHERE d.id = :id AND d.turn = :turn AND d.state = 'pending'
            """)
    Optional<DueDelivery> due(UUID id, int turn);

    @SqlUpdate("""
            INSERT INTO gantry.notify_attempt (delivery_id, number, started_at, duration_ms, status_code, error)
            VALUES (:deliveryId, :number, :startedAt, :durationMs, :statusCode, :error)
            ON CONFLICT DO NOTHING
            """)
    int insertAttempt(UUID deliveryId, int number, OffsetDateTime startedAt, long durationMs, Integer statusCode,
                      String error);

    /** Delivered, if the turn is still {@code turn}; 1 when it moved. */
    @SqlUpdate("""
            UPDATE gantry.notify_delivery
            SET state = 'delivered', attempts = attempts + 1, delivered_at = :now, finished_at = :now,
                next_attempt_at = NULL, waiting_reason = NULL
            WHERE id = :id AND turn = :turn AND state = 'pending'
            """)
    int delivered(UUID id, int turn, OffsetDateTime now);

    /**
     * Moves the delivery to its next turn, to run at {@code at}: after a failed attempt ({@code attempted}) or a wait
     * for its destination's guard ({@code waitingReason}); 1 when the turn was still {@code turn}.
     */
    @SqlUpdate("""
            UPDATE gantry.notify_delivery
            SET turn = turn + 1, attempts = attempts + CASE WHEN :attempted THEN 1 ELSE 0 END,
                next_attempt_at = :at, waiting_reason = :waitingReason
            WHERE id = :id AND turn = :turn AND state = 'pending'
            """)
    int nextTurn(UUID id, int turn, boolean attempted, OffsetDateTime at, String waitingReason);

    /**
     * Whether the destination has a delivery of the end of workflow {@code workflowId}: its start's commit status,
     * sent now, would overwrite the final one on the forge (or land after it), so it is superseded instead.
     */
    @SqlQuery("""
            SELECT EXISTS (SELECT 1 FROM gantry.notify_event e
                           JOIN gantry.notify_delivery d ON d.event_id = e.id
                           WHERE e.type = 'workflow-completed' AND e.subject_id = :workflowId
                             AND d.channel = :channel AND d.destination_id = :destinationId)
            """)
    boolean hasEndOf(UUID workflowId, String channel, UUID destinationId);

    /** Superseded, never to be sent, if the turn is still {@code turn}; 1 when it moved. */
    @SqlUpdate("""
            UPDATE gantry.notify_delivery
            SET state = 'superseded', finished_at = :now, next_attempt_at = NULL, waiting_reason = NULL
            WHERE id = :id AND turn = :turn AND state = 'pending'
            """)
    int superseded(UUID id, int turn, OffsetDateTime now);

    /** Gives the delivery up with {@code reason} at {@code now}; 1 when the turn was still {@code turn}. */
    @SqlUpdate("""
            UPDATE gantry.notify_delivery
            SET state = 'dead', attempts = attempts + CASE WHEN :attempted THEN 1 ELSE 0 END, dead_reason = :reason,
                finished_at = :now, next_attempt_at = NULL, waiting_reason = NULL
            WHERE id = :id AND turn = :turn AND state = 'pending'
            """)
    int dead(UUID id, int turn, boolean attempted, String reason, OffsetDateTime now);

    /**
     * Starts the destination's delivery over (a manual redeliver): pending, a fresh retry window, its next turn; its
     * new turn.
     */
    @SqlQuery("""
            UPDATE gantry.notify_delivery
            SET state = 'pending', turn = turn + 1, window_started_at = :now, next_attempt_at = :now,
                waiting_reason = NULL, dead_reason = NULL, delivered_at = NULL, finished_at = NULL
            WHERE id = :id AND channel = :channel AND destination_id = :destinationId
            RETURNING turn
            """)
    Optional<Integer> restart(UUID id, String channel, UUID destinationId, OffsetDateTime now);

    /** A delivery as the log shows it. */
    record DeliveryRow(UUID id, UUID eventId, String type, UUID subjectId, String state, int attempts,
                       OffsetDateTime createdAt, OffsetDateTime nextAttemptAt, String waitingReason,
                       String deadReason, OffsetDateTime deliveredAt) {
    }

    @SqlQuery("""
            SELECT d.id, d.event_id, e.type, e.subject_id, d.state, d.attempts, d.created_at, d.next_attempt_at,
                   d.waiting_reason, d.dead_reason, d.delivered_at
            FROM gantry.notify_delivery d
            JOIN gantry.notify_event e ON e.id = d.event_id
            WHERE d.channel = :channel AND d.destination_id = :destinationId
            ORDER BY d.created_at DESC, d.id
            LIMIT :limit
            """)
    List<DeliveryRow> deliveriesOf(String channel, UUID destinationId, int limit);

    record AttemptRow(UUID deliveryId, int number, OffsetDateTime startedAt, long durationMs, Integer statusCode,
                      String error) {
    }

    @SqlQuery("""
            SELECT * FROM gantry.notify_attempt WHERE delivery_id = ANY (:deliveryIds) ORDER BY delivery_id, number
            """)
    List<AttemptRow> attemptsOf(UUID[] deliveryIds);

    /** A turn waiting in the relay (V0034) for its shard, with the project that routes it. */
    record RelayRow(UUID deliveryId, int turn, OffsetDateTime runAt, String organization, UUID projectId) {
    }

    /** Puts a turn in the relay; a repeated transaction puts it there once. */
    @SqlUpdate("""
            INSERT INTO gantry.notify_relay (delivery_id, turn, shard, run_at, organization)
            VALUES (:deliveryId, :turn, :shard, :runAt, :organization)
            ON CONFLICT DO NOTHING
            """)
    void insertRelay(UUID deliveryId, int turn, int shard, OffsetDateTime runAt, String organization);

    /**
     * The oldest {@code limit} turns waiting for shard {@code shard}, locked until the caller's transaction ends;
     * SKIP LOCKED so that the servers of the database relay side by side, each taking turns no other is moving.
     */
    @SqlQuery("""
            SELECT r.delivery_id, r.turn, r.run_at, r.organization, e.project_id
            FROM gantry.notify_relay r
            JOIN gantry.notify_delivery d ON d.id = r.delivery_id
            JOIN gantry.notify_event e ON e.id = d.event_id
            WHERE r.shard = :shard
            ORDER BY r.created_at
            LIMIT :limit
            FOR UPDATE OF r SKIP LOCKED
            """)
    List<RelayRow> relayBatch(int shard, int limit);

    /** Removes relayed turns, each named by its delivery and turn. */
    @SqlUpdate("""
            DELETE FROM gantry.notify_relay r
            USING unnest(:deliveryIds, :turns) AS done (delivery_id, turn)
            WHERE r.delivery_id = done.delivery_id AND r.turn = done.turn
            """)
    int deleteRelayed(UUID[] deliveryIds, int[] turns);
}
