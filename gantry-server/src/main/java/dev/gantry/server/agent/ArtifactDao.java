package dev.gantry.server.agent;

import java.time.OffsetDateTime;
import java.util.UUID;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

/** The agent side's statements on {@code gantry.artifact}. */
interface ArtifactDao {
    /** A second upload of one path replaces the first. */
    @SqlUpdate("""
            INSERT INTO gantry.artifact (job_id, node_index, path, size, created_at)
            VALUES (:jobId, :nodeIndex, :path, :size, :now)
            ON CONFLICT (job_id, node_index, path) DO UPDATE SET size = excluded.size, created_at = excluded.created_at
            """)
    void upsert(UUID jobId, int nodeIndex, String path, long size, OffsetDateTime now);
}
