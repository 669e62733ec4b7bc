package dev.gantry.server.agent;

import java.time.OffsetDateTime;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

/** Every statement on {@code gantry.agent}. */
interface AgentDao {
    /** Inserts the agent unless one was registered with {@code registrationKey} (null: none) already; 1 if it did. */
    @SqlUpdate("""
            INSERT INTO gantry.agent (id, name, cpu, memory_mb, disk_gb, pool, registered_at, last_seen_at,
                                      credential_hash, registration_token_id, registration_key)
            VALUES (:id, :name, :cpu, :memoryMb, :diskGb, :pool, :now, :now, CAST(:credentialHash AS bytea),
                    CAST(:registrationTokenId AS uuid), :registrationKey)
            ON CONFLICT (registration_key) DO NOTHING
            """)
    int insert(UUID id, String name, int cpu, int memoryMb, Integer diskGb, String pool, OffsetDateTime now,
               byte[] credentialHash, UUID registrationTokenId, String registrationKey);

    /** What a registration asked for, to tell a repeat of it from another registration under the same key. */
    record KeyedAgent(UUID id, String name, String pool, UUID registrationTokenId) {
    }

    @SqlQuery("""
            SELECT id, name, pool, registration_token_id FROM gantry.agent WHERE registration_key = :registrationKey
            FOR UPDATE
            """)
    @RegisterConstructorMapper(KeyedAgent.class)
    Optional<KeyedAgent> registeredWith(String registrationKey);

    /** Replaces the agent's credential: the one of the answer that was lost is never used. */
    @SqlUpdate("UPDATE gantry.agent SET credential_hash = :credentialHash, last_seen_at = :now WHERE id = :id")
    int replaceCredential(UUID id, byte[] credentialHash, OffsetDateTime now);

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
