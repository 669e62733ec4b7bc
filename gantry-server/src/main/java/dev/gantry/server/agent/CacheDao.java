package dev.gantry.server.agent;

import java.time.OffsetDateTime;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

/** Every statement on {@code gantry.cache_entry}. */
@RegisterConstructorMapper(CacheDao.Entry.class)
interface CacheDao {
    record Entry(String key, long size) {
    }

    /**
     * The entry {@code key} names exactly, else the newest whose key starts with it. {@code prefixPattern} is
     * {@code key} with LIKE's wildcards escaped and {@code %} appended; the key's "C" collation lets the primary key
     * index serve the prefix range.
     */
    @SqlQuery("""
            SELECT key, size
            FROM gantry.cache_entry
            WHERE project_id = :projectId AND key LIKE :prefixPattern ESCAPE '\\'
            ORDER BY key = :key DESC, created_at DESC, key DESC
            LIMIT 1
            """)
    Optional<Entry> match(UUID projectId, String key, String prefixPattern);

    @SqlQuery("SELECT key, size FROM gantry.cache_entry WHERE project_id = :projectId AND key = :key")
    Optional<Entry> find(UUID projectId, String key);

    /** @return false when the key exists: cache entries are immutable */
    @SqlUpdate("""
            INSERT INTO gantry.cache_entry (project_id, key, size, created_at)
            VALUES (:projectId, :key, :size, :now)
            ON CONFLICT (project_id, key) DO NOTHING
            """)
    boolean insert(UUID projectId, String key, long size, OffsetDateTime now);
}
