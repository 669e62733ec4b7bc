package dev.gantry.server.secret;

import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

/** Every statement on {@code gantry.data_key}. */
@RegisterConstructorMapper(DataKeyDao.Row.class)
interface DataKeyDao {
    record Row(UUID id, String masterKeyId, byte[] wrapped) {
    }

    @SqlUpdate("""
            INSERT INTO gantry.data_key (id, master_key_id, wrapped, created_at)
            VALUES (:id, :masterKeyId, :wrapped, :createdAt)
            """)
    void insert(UUID id, String masterKeyId, byte[] wrapped, OffsetDateTime createdAt);

    /** The data keys wrapped with {@code masterKeyId}, newest first. */
    @SqlQuery("SELECT id FROM gantry.data_key WHERE master_key_id = :masterKeyId ORDER BY created_at DESC")
    List<UUID> wrappedWith(String masterKeyId);

    @SqlQuery("SELECT id, master_key_id, wrapped FROM gantry.data_key WHERE id = :id")
    Optional<Row> find(UUID id);

    /** Every data key, locked until the transaction ends: a rotation re-wraps them all at once. */
    @SqlQuery("SELECT id, master_key_id, wrapped FROM gantry.data_key ORDER BY id FOR UPDATE")
    List<Row> lockAll();

    @SqlUpdate("UPDATE gantry.data_key SET master_key_id = :masterKeyId, wrapped = :wrapped WHERE id = :id")
    void rewrap(UUID id, String masterKeyId, byte[] wrapped);
}
