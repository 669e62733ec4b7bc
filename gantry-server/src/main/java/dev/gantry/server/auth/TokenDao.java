package dev.gantry.server.auth;

import java.time.OffsetDateTime;
import java.util.Optional;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

/** Every statement on {@code gantry.api_token}. Use it inside a transaction: {@link #lockForIssuing()} needs one. */
interface TokenDao {
    /**
     * Serialises token issuing until the transaction ends, so that two servers starting at once on one database
     * issue one token of each kind, not two. EXCLUSIVE mode still lets plain reads through.
     */
    @SqlUpdate("LOCK TABLE gantry.api_token IN EXCLUSIVE MODE")
    void lockForIssuing();

    @SqlQuery("SELECT token_hash FROM gantry.api_token WHERE kind = :kind")
    Optional<byte[]> hashOf(String kind);

    @SqlUpdate("""
            INSERT INTO gantry.api_token (kind, token_hash, issued_at)
            VALUES (:kind, :hash, :issuedAt)
            ON CONFLICT (kind) DO UPDATE SET token_hash = excluded.token_hash, issued_at = excluded.issued_at
            """)
    void store(String kind, byte[] hash, OffsetDateTime issuedAt);
}
