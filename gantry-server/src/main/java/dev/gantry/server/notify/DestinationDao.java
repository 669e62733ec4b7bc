package dev.gantry.server.notify;

import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.customizer.BindMethods;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

/** The statements on notification destinations (V0032); all in the caller's transaction. */
@RegisterConstructorMapper(DestinationDao.DestinationRow.class)
interface DestinationDao {

    /** A destination as stored; its secret (Slack URL, forge token) still sealed. */
    record DestinationRow(UUID id, UUID projectId, String kind, String name, String host, String[] recipients,
                          String forge, String apiUrl, String repository, byte[] secret, UUID secretKey,
                          String notifyWhen, String[] branches, boolean budgetAlerts, OffsetDateTime createdAt,
                          OffsetDateTime updatedAt) {
    }

    @SqlUpdate("""
            INSERT INTO gantry.notify_destination (id, project_id, kind, name, host, recipients, forge, api_url,
                                                   repository, secret, secret_key, notify_when, branches,
                                                   budget_alerts, created_at, updated_at)
            VALUES (:id, :projectId, :kind, :name, :host, :recipients, :forge, :apiUrl, :repository, :secret,
                    CAST(:secretKey AS uuid), :notifyWhen, :branches, :budgetAlerts, :createdAt, :updatedAt)
            """)
    void insert(@BindMethods DestinationRow row);

    @SqlUpdate("""
            UPDATE gantry.notify_destination
            SET name = :name, host = :host, recipients = :recipients, forge = :forge, api_url = :apiUrl,
                repository = :repository, secret = :secret, secret_key = CAST(:secretKey AS uuid),
                notify_when = :notifyWhen, branches = :branches, budget_alerts = :budgetAlerts, updated_at = :updatedAt
            WHERE id = :id
            """)
    int update(@BindMethods DestinationRow row);

    @SqlQuery("SELECT * FROM gantry.notify_destination WHERE id = :id")
    Optional<DestinationRow> find(UUID id);

    /** The destination, locked until the transaction ends: changes take turns. */
    @SqlQuery("SELECT * FROM gantry.notify_destination WHERE id = :id FOR UPDATE")
    Optional<DestinationRow> lock(UUID id);

    @SqlQuery("SELECT * FROM gantry.notify_destination WHERE project_id = :projectId ORDER BY created_at, id")
    List<DestinationRow> ofProject(UUID projectId);

    /** The Slack and e-mail destinations of the organization's projects that ask for its budget alerts. */
    @SqlQuery("""
            SELECT d.* FROM gantry.notify_destination d JOIN gantry.project p ON p.id = d.project_id
            WHERE p.organization = :organization AND d.budget_alerts AND d.kind IN ('slack', 'email')
            ORDER BY d.created_at, d.id
            """)
    List<DestinationRow> budgetAlertsOf(String organization);

    @SqlQuery("SELECT count(*) FROM gantry.notify_destination WHERE project_id = :projectId")
    int countOf(UUID projectId);

    /** Removes the destination with its deliveries (their attempts go with them). */
    @SqlUpdate("""
            WITH gone AS (DELETE FROM gantry.notify_delivery WHERE channel = (
                SELECT kind FROM gantry.notify_destination WHERE id = :id) AND destination_id = :id)
            DELETE FROM gantry.notify_destination WHERE id = :id
            """)
    int delete(UUID id);

    /** One pending delivery of the event to the destination; empty when it has one already. */
    @SqlQuery("""
            INSERT INTO gantry.notify_delivery (id, channel, destination_id, event_id, state, window_started_at,
                                                next_attempt_at, created_at)
            VALUES (gen_random_uuid(), :channel, :destinationId, :eventId, 'pending', :now, :now, :now)
            ON CONFLICT ON CONSTRAINT notify_delivery_once DO NOTHING
            RETURNING id
            """)
    Optional<UUID> insertDelivery(String channel, UUID destinationId, UUID eventId, OffsetDateTime now);

    @SqlQuery("""
            SELECT p.organization FROM gantry.notify_destination d JOIN gantry.project p ON p.id = d.project_id
            WHERE d.id = :id""")
    Optional<String> organizationOf(UUID id);
}
