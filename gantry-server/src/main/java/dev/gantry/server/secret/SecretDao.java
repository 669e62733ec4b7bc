package dev.gantry.server.secret;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.customizer.BindList;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

/** Every statement on {@code gantry.project_env_var}, {@code gantry.context} and {@code gantry.context_env_var}. */
@RegisterConstructorMapper(SecretDao.ProjectVar.class)
@RegisterConstructorMapper(SecretDao.Context.class)
@RegisterConstructorMapper(SecretDao.ContextVar.class)
@RegisterConstructorMapper(SecretDao.SealedVar.class)
@RegisterConstructorMapper(SecretDao.Restriction.class)
interface SecretDao {
    record ProjectVar(String name, String hint, boolean masked, Instant createdAt) {
    }

    record Context(UUID id, String organization, String name, Instant createdAt) {
    }

    record ContextVar(UUID contextId, String name, boolean masked, Instant createdAt, Instant updatedAt) {
    }

    /** A stored value as it is kept: {@code owner} is the project's or the context's id. */
    record SealedVar(UUID owner, String name, UUID dataKeyId, byte[] sealed) {
    }

    record Restriction(UUID id, UUID contextId, String groupName, Instant createdAt) {
    }

    /** Creates or replaces the variable, as CircleCI's POST does; a replaced one keeps no trace of its old value. */
    @SqlUpdate("""
            INSERT INTO gantry.project_env_var (project_id, name, data_key_id, sealed, hint, masked, created_at)
            VALUES (:projectId, :name, :dataKeyId, :sealed, :hint, :masked, :now)
            ON CONFLICT (project_id, name) DO UPDATE
            SET data_key_id = excluded.data_key_id, sealed = excluded.sealed, hint = excluded.hint,
                masked = excluded.masked, created_at = excluded.created_at
            """)
    void putProjectVar(UUID projectId, String name, UUID dataKeyId, byte[] sealed, String hint, boolean masked,
                       OffsetDateTime now);

    @SqlQuery("SELECT name, hint, masked, created_at FROM gantry.project_env_var WHERE project_id = :projectId ORDER BY name")
    List<ProjectVar> projectVars(UUID projectId);

    @SqlQuery("""
            SELECT name, hint, masked, created_at FROM gantry.project_env_var WHERE project_id = :projectId AND name = :name
            """)
    Optional<ProjectVar> projectVar(UUID projectId, String name);

    @SqlUpdate("DELETE FROM gantry.project_env_var WHERE project_id = :projectId AND name = :name")
    boolean deleteProjectVar(UUID projectId, String name);

    @SqlQuery("""
            SELECT project_id AS owner, name, data_key_id, sealed FROM gantry.project_env_var
            WHERE project_id = :projectId ORDER BY name
            """)
    List<SealedVar> sealedProjectVars(UUID projectId);

    /** @return false, inserting nothing, when the organization has a context of that name */
    @SqlUpdate("""
            INSERT INTO gantry.context (id, organization, name, created_at) VALUES (:id, :organization, :name, :now)
            ON CONFLICT ON CONSTRAINT context_name DO NOTHING
            """)
    boolean insertContext(UUID id, String organization, String name, OffsetDateTime now);

    @SqlQuery("""
            SELECT id, organization, name, created_at FROM gantry.context
            WHERE organization = :organization ORDER BY name
            """)
    List<Context> contexts(String organization);

    @SqlQuery("SELECT id, organization, name, created_at FROM gantry.context WHERE id = :id")
    Optional<Context> context(UUID id);

    @SqlQuery("""
            SELECT id, organization, name, created_at FROM gantry.context
            WHERE organization = :organization AND name IN (<names>)
            """)
    List<Context> contextsNamed(String organization, @BindList("names") List<String> names);

    /** The organizations that have a project or a context: the ones an owner id can name. */
    @SqlQuery("SELECT organization FROM gantry.project UNION SELECT organization FROM gantry.context")
    List<String> organizations();

    @SqlUpdate("DELETE FROM gantry.context WHERE id = :id")
    boolean deleteContext(UUID id);

    @SqlUpdate("""
            INSERT INTO gantry.context_env_var (context_id, name, data_key_id, sealed, masked, created_at, updated_at)
            VALUES (:contextId, :name, :dataKeyId, :sealed, :masked, :now, :now)
            ON CONFLICT (context_id, name) DO UPDATE
            SET data_key_id = excluded.data_key_id, sealed = excluded.sealed, masked = excluded.masked,
                updated_at = excluded.updated_at
            """)
    void putContextVar(UUID contextId, String name, UUID dataKeyId, byte[] sealed, boolean masked,
                       OffsetDateTime now);

    @SqlQuery("""
            SELECT context_id, name, masked, created_at, updated_at FROM gantry.context_env_var
            WHERE context_id = :contextId ORDER BY name
            """)
    List<ContextVar> contextVars(UUID contextId);

    @SqlQuery("""
            SELECT context_id, name, masked, created_at, updated_at FROM gantry.context_env_var
            WHERE context_id = :contextId AND name = :name
            """)
    Optional<ContextVar> contextVar(UUID contextId, String name);

    @SqlUpdate("DELETE FROM gantry.context_env_var WHERE context_id = :contextId AND name = :name")
    boolean deleteContextVar(UUID contextId, String name);

    @SqlQuery("""
            SELECT context_id AS owner, name, data_key_id, sealed FROM gantry.context_env_var
            WHERE context_id = :contextId ORDER BY name
            """)
    List<SealedVar> sealedContextVars(UUID contextId);

    /** @return false, inserting nothing, when the context is restricted to that group already */
    @SqlUpdate("""
            INSERT INTO gantry.context_restriction (id, context_id, group_name, created_at)
            VALUES (:id, :contextId, :groupName, :now) ON CONFLICT DO NOTHING
            """)
    boolean insertRestriction(UUID id, UUID contextId, String groupName, OffsetDateTime now);

    @SqlQuery("""
            SELECT id, context_id, group_name, created_at FROM gantry.context_restriction
            WHERE context_id = :contextId ORDER BY group_name
            """)
    List<Restriction> restrictions(UUID contextId);

    @SqlUpdate("DELETE FROM gantry.context_restriction WHERE context_id = :contextId AND id = :id")
    boolean deleteRestriction(UUID contextId, UUID id);

    /** True when {@code login} is in a group of {@code organization} that context {@code contextId} is restricted to. */
    @SqlQuery("""
            SELECT EXISTS (SELECT 1 FROM gantry.context_restriction r
                           JOIN gantry.user_group_member m ON m.group_name = r.group_name
                                AND m.organization = :organization
                           JOIN gantry.app_user u ON u.id = m.user_id
                           WHERE r.context_id = :contextId AND u.login = :login)
            """)
    boolean inRestrictedGroup(UUID contextId, String organization, String login);
}
