package dev.gantry.server.agent;

import java.time.OffsetDateTime;
import java.util.UUID;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

/** Every statement on {@code gantry.agent}. */
interface AgentDao {
    @SqlUpdate("""
            INSERT INTO gantry.agent (id, name, cpu, memory_mb, disk_gb, pool, registered_at, last_seen_at,
                                      credential_hash, registration_token_id)
            VALUES (:id, :name, :cpu, :memoryMb, :diskGb, :pool, :now, :now, CAST(:credentialHash AS bytea),
                    CAST(:registrationTokenId AS uuid))
            """)
    void insert(UUID id, String name, int cpu, int memoryMb, Integer diskGb, String pool, OffsetDateTime now,
                byte[] credentialHash, UUID registrationTokenId);

    /** @return 0 when there is no such agent */
    @SqlUpdate("UPDATE gantry.agent SET last_seen_at = :now WHERE id = :id")
    int seen(UUID id, OffsetDateTime now);

    /**
     * Marks the agent seen unless it was since {@code staleBefore} or another transaction is marking it right now:
     * the heartbeats of an agent's many tasks must not queue on its one row (they held every pooled connection
     * waiting for it, with 25 tasks an agent).
     */
    @SqlUpdate("""
            UPDATE gantry.agent SET last_seen_at = :now
            WHERE id = (SELECT id FROM gantry.agent WHERE id = :id AND last_seen_at < :staleBefore
                        FOR UPDATE SKIP LOCKED)
            """)
    int touch(UUID id, OffsetDateTime now, OffsetDateTime staleBefore);
}
