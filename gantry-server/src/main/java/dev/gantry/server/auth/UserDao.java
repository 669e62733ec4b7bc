package dev.gantry.server.auth;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

/** Every statement on {@code gantry.app_user}, {@code gantry.user_token} and {@code gantry.membership}. */
@RegisterConstructorMapper(UserDao.User.class)
@RegisterConstructorMapper(UserDao.Token.class)
@RegisterConstructorMapper(UserDao.Member.class)
@RegisterConstructorMapper(UserDao.Holder.class)
interface UserDao {
    record User(UUID id, String login, String name, boolean siteAdmin, Instant createdAt) {
    }

    record Token(UUID id, String label, Instant createdAt, Instant expiresAt, Instant lastUsedAt, Instant revokedAt) {
    }

    record Member(String organization, String login, String role) {
    }

    /** A live token's holder, and when the token was last marked used. */
    record Holder(UUID tokenId, UUID userId, Instant lastUsedAt) {
    }

    /** @return false, inserting nothing, when the login is taken */
    @SqlUpdate("""
            INSERT INTO gantry.app_user (id, login, name, site_admin, created_at)
            VALUES (:id, :login, :name, :siteAdmin, :now) ON CONFLICT DO NOTHING
            """)
    boolean insertUser(UUID id, String login, String name, boolean siteAdmin, OffsetDateTime now);

    @SqlQuery("SELECT id, login, name, site_admin, created_at FROM gantry.app_user WHERE login = :login")
    Optional<User> user(String login);

    @SqlQuery("SELECT id, login, name, site_admin, created_at FROM gantry.app_user WHERE id = :id")
    Optional<User> userById(UUID id);

    @SqlQuery("SELECT id, login, name, site_admin, created_at FROM gantry.app_user ORDER BY login")
    List<User> users();

    @SqlUpdate("""
            INSERT INTO gantry.user_token (id, user_id, token_hash, label, created_at, expires_at)
            VALUES (:id, :userId, :hash, :label, :now, :expiresAt)
            """)
    void insertToken(UUID id, UUID userId, byte[] hash, String label, OffsetDateTime now, OffsetDateTime expiresAt);

    @SqlQuery("""
            SELECT id AS token_id, user_id, last_used_at FROM gantry.user_token
            WHERE token_hash = :hash AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > :now)
            """)
    Optional<Holder> liveToken(byte[] hash, OffsetDateTime now);

    @SqlUpdate("UPDATE gantry.user_token SET last_used_at = :now WHERE id = :id")
    void markUsed(UUID id, OffsetDateTime now);

    @SqlQuery("""
            SELECT id, label, created_at, expires_at, last_used_at, revoked_at FROM gantry.user_token
            WHERE user_id = :userId ORDER BY created_at
            """)
    List<Token> tokens(UUID userId);

    @SqlUpdate("""
            UPDATE gantry.user_token SET revoked_at = :now
            WHERE id = :id AND user_id = :userId AND revoked_at IS NULL
            """)
    boolean revoke(UUID userId, UUID id, OffsetDateTime now);

    @SqlUpdate("""
            INSERT INTO gantry.membership (organization, user_id, role, created_at)
            VALUES (:organization, :userId, :role, :now)
            ON CONFLICT (organization, user_id) DO UPDATE SET role = excluded.role
            """)
    void putMember(String organization, UUID userId, String role, OffsetDateTime now);

    @SqlUpdate("DELETE FROM gantry.membership WHERE organization = :organization AND user_id = :userId")
    boolean deleteMember(String organization, UUID userId);

    @SqlQuery("""
            SELECT m.organization, u.login, m.role FROM gantry.membership m JOIN gantry.app_user u ON u.id = m.user_id
            WHERE m.organization = :organization ORDER BY u.login
            """)
    List<Member> members(String organization);

    @SqlQuery("""
            SELECT m.organization, u.login, m.role FROM gantry.membership m JOIN gantry.app_user u ON u.id = m.user_id
            WHERE m.user_id = :userId
            """)
    List<Member> memberships(UUID userId);

    @SqlUpdate("""
            INSERT INTO gantry.user_group_member (organization, group_name, user_id, created_at)
            VALUES (:organization, :group, :userId, :now) ON CONFLICT DO NOTHING
            """)
    void putGroupMember(String organization, String group, UUID userId, OffsetDateTime now);

    @SqlUpdate("""
            DELETE FROM gantry.user_group_member
            WHERE organization = :organization AND group_name = :group AND user_id = :userId
            """)
    boolean deleteGroupMember(String organization, String group, UUID userId);

    /** The organization's groups' members: organization is the group's name, role unused. */
    @SqlQuery("""
            SELECT g.group_name AS organization, u.login, '' AS role FROM gantry.user_group_member g
            JOIN gantry.app_user u ON u.id = g.user_id WHERE g.organization = :organization
            ORDER BY g.group_name, u.login
            """)
    List<Member> groupMembers(String organization);
}
