package dev.gantry.server.pipeline;

import java.time.OffsetDateTime;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

/** Every statement on {@code gantry.webhook_delivery}; used inside a trigger's transaction. */
interface WebhookDeliveryDao {
    /** The unique constraint a second pipeline for one delivery to one project runs into. */
    String ONCE_CONSTRAINT = "webhook_delivery_once";

    /** The pipeline the delivery made for the project, if it made one. */
    @SqlQuery("""
            SELECT pipeline_id
            FROM gantry.webhook_delivery
            WHERE provider = :provider AND delivery_id = :deliveryId AND project_id = :projectId
            """)
    Optional<UUID> find(String provider, String deliveryId, UUID projectId);

    /** Fails on {@link #ONCE_CONSTRAINT} when the delivery made a pipeline for the project already. */
    @SqlUpdate("""
            INSERT INTO gantry.webhook_delivery (provider, delivery_id, project_id, pipeline_id, received_at)
            VALUES (:provider, :deliveryId, :projectId, :pipelineId, :receivedAt)
            """)
    void insert(String provider, String deliveryId, UUID projectId, UUID pipelineId, OffsetDateTime receivedAt);
}
