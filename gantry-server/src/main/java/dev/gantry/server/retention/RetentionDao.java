package dev.gantry.server.retention;

import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

/**
 * The index rows of caches, workspace layers and artifacts past their retention, oldest first, and their deletion (a
 * layer's row is only marked: {@code WorkspaceRoutes} tells a job that would attach it that it expired); and the
 * notification log's rows past theirs.
 */
@RegisterConstructorMapper(RetentionDao.ExpiredCache.class)
@RegisterConstructorMapper(RetentionDao.ExpiredLayer.class)
@RegisterConstructorMapper(RetentionDao.ExpiredArtifact.class)
interface RetentionDao {
    record ExpiredCache(UUID projectId, String key, long size) {
    }

    record ExpiredLayer(UUID id, UUID workflowId, long size) {
    }

    record ExpiredArtifact(UUID jobId, int nodeIndex, String path, long size) {
    }

    @SqlQuery("""
            SELECT project_id, key, size FROM gantry.cache_entry
            WHERE created_at < :cutoff ORDER BY created_at LIMIT :limit
            """)
    List<ExpiredCache> expiredCaches(OffsetDateTime cutoff, int limit);

    /** The row only if it is still the expired one: a key deleted and saved again meanwhile stays. */
    @SqlUpdate("DELETE FROM gantry.cache_entry WHERE project_id = :projectId AND key = :key AND created_at < :cutoff")
    int deleteCache(UUID projectId, String key, OffsetDateTime cutoff);

    @SqlQuery("""
            SELECT id, workflow_id, size FROM gantry.workspace_layer
            WHERE created_at < :cutoff AND expired_at IS NULL ORDER BY created_at LIMIT :limit
            """)
    List<ExpiredLayer> expiredLayers(OffsetDateTime cutoff, int limit);

    @SqlUpdate("UPDATE gantry.workspace_layer SET expired_at = :now WHERE id = :id AND expired_at IS NULL")
    int markLayerExpired(UUID id, OffsetDateTime now);

    @SqlQuery("""
            SELECT job_id, node_index, path, size FROM gantry.artifact
            WHERE created_at < :cutoff ORDER BY created_at LIMIT :limit
            """)
    List<ExpiredArtifact> expiredArtifacts(OffsetDateTime cutoff, int limit);

    @SqlUpdate("""
            DELETE FROM gantry.artifact
            WHERE job_id = :jobId AND node_index = :nodeIndex AND path = :path AND created_at < :cutoff
            """)
    int deleteArtifact(UUID jobId, int nodeIndex, String path, OffsetDateTime cutoff);

    /**
     * Drops up to {@code limit} deliveries that became final before {@code cutoff}, with their attempts (ON DELETE
     * CASCADE). The outer check sees a redeliver that committed meanwhile (it clears finished_at) and keeps the row.
     * A budget alert's deliveries stay as long as the alert, which the usage report shows with them: there are at
     * most two alerts per organization and month.
     */
    @SqlUpdate("""
            DELETE FROM gantry.notify_delivery
            WHERE id IN (SELECT d.id FROM gantry.notify_delivery d
                         WHERE d.finished_at < :cutoff
                           AND NOT EXISTS (SELECT 1 FROM gantry.notify_event e
                                           WHERE e.id = d.event_id AND e.type = 'budget-alert')
                         ORDER BY d.finished_at LIMIT :limit)
              AND finished_at < :cutoff
            """)
    int deleteFinishedDeliveries(OffsetDateTime cutoff, int limit);

    /** Drops up to {@code limit} events older than {@code cutoff} that no delivery refers to any more. */
    @SqlUpdate("""
            DELETE FROM gantry.notify_event
            WHERE id IN (SELECT e.id FROM gantry.notify_event e
                         WHERE e.happened_at < :cutoff
                           AND NOT EXISTS (SELECT 1 FROM gantry.notify_delivery d WHERE d.event_id = e.id)
                         LIMIT :limit)
              AND NOT EXISTS (SELECT 1 FROM gantry.notify_delivery d WHERE d.event_id = notify_event.id)
            """)
    int deleteEventsWithoutDeliveries(OffsetDateTime cutoff, int limit);
}
