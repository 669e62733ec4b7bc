package dev.gantry.server.orb;

import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

/** Every statement on {@code gantry.orb_version}. */
@RegisterConstructorMapper(StoredOrb.class)
@RegisterConstructorMapper(OrbDao.Summary.class)
interface OrbDao {

    /** One orb: its name, how many versions it has and the highest release (null when it has only dev versions). */
    record Summary(String namespace, String name, int versions) {
    }

    @SqlQuery("""
            SELECT namespace, name, version, source, sha256, origin, created_at, updated_at
            FROM gantry.orb_version
            WHERE namespace = :namespace AND name = :name AND version = :version
            """)
    Optional<StoredOrb> find(String namespace, String name, String version);

    @SqlQuery("SELECT version FROM gantry.orb_version WHERE namespace = :namespace AND name = :name")
    List<String> versions(String namespace, String name);

    @SqlQuery("""
            SELECT namespace, name, count(*)::int AS versions
            FROM gantry.orb_version
            GROUP BY namespace, name
            ORDER BY namespace, name
            """)
    List<Summary> orbs();

    /** @return false, writing nothing, when the version exists */
    @SqlUpdate("""
            INSERT INTO gantry.orb_version (namespace, name, version, source, sha256, origin, created_at, updated_at)
            VALUES (:namespace, :name, :version, :source, :sha256, :origin, :now, :now)
            ON CONFLICT DO NOTHING
            """)
    boolean insert(String namespace, String name, String version, String source, byte[] sha256, String origin,
                   OffsetDateTime now);

    /** Replaces a dev version's source; releases never change. */
    @SqlUpdate("""
            UPDATE gantry.orb_version SET source = :source, sha256 = :sha256, origin = :origin, updated_at = :now
            WHERE namespace = :namespace AND name = :name AND version = :version AND version LIKE 'dev:%'
            """)
    boolean replaceDev(String namespace, String name, String version, String source, byte[] sha256, String origin,
                       OffsetDateTime now);

    @SqlQuery("SELECT reference, version FROM gantry.pipeline_orb WHERE pipeline_id = :pipelineId ORDER BY reference")
    @RegisterConstructorMapper(Resolution.class)
    List<Resolution> resolutions(UUID pipelineId);

    /** A reference as a config wrote it ({@code circleci/node@5}) and the version it was compiled with. */
    record Resolution(String reference, String version) {
    }
}
