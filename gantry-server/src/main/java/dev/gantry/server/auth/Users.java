package dev.gantry.server.auth;

import dev.gantry.server.http.ApiException;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.regex.Pattern;
import org.jdbi.v3.core.Jdbi;

/**
 * Users, their tokens and their roles in organizations. A user's id is {@link ActorIds#of} its login, the id the API
 * already shows for the actor of a pipeline or a workflow. The admin token's holder is the user {@code admin}, a site
 * admin. A token is shown once, when it is issued; the database keeps its SHA-256 only. Thread-safe.
 */
public final class Users {
    /** The login of the admin token's holder. */
    public static final String ADMIN = "admin";
    static final String LOGIN_RULE = "1-64 letters, digits, '.', '_' or '-', starting with a letter or digit";
    private static final Pattern LOGIN = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");
    /** How stale {@code last_used_at} may get: marking every request would write a row per call. */
    private static final Duration MARK_USED_EVERY = Duration.ofMinutes(1);
    private static final Principal ADMIN_PRINCIPAL = new Principal(ActorIds.of(ADMIN), ADMIN, "Gantry admin", true,
            Map.of());

    /** A token just issued: its secret text, shown this once, and its record. */
    public record IssuedToken(String token, UserDao.Token record) {
    }

    private final Jdbi jdbi;
    private final InstantSource clock;
    private final SecureRandom random;

    public Users(Jdbi jdbi, InstantSource clock, SecureRandom random) {
        this.jdbi = jdbi;
        this.clock = clock;
        this.random = random;
    }

    /** Makes sure the admin token's user exists; every server start calls it. */
    public Users ensureAdmin() {
        jdbi.useHandle(h -> h.attach(UserDao.class).insertUser(ADMIN_PRINCIPAL.id(), ADMIN, ADMIN_PRINCIPAL.name(),
                true, now()));
        return this;
    }

    /**
     * Who the admin token is: the site admin {@code admin}, which {@link #ensureAdmin} made. Built without a query, as
     * every call with the admin token asks; a site admin's roles are every organization's admin, whatever the rows say.
     */
    public Principal admin() {
        return ADMIN_PRINCIPAL;
    }

    /** Who holds the live (not revoked, not expired) user token with {@code hash}, if anyone. */
    public Optional<Principal> byToken(TokenHash hash) {
        return jdbi.inTransaction(h -> {
            UserDao dao = h.attach(UserDao.class);
            Optional<UserDao.Holder> holder = dao.liveToken(hash.bytes(), now());
            holder.filter(t -> t.lastUsedAt() == null
                            || t.lastUsedAt().plus(MARK_USED_EVERY).isBefore(clock.instant()))
                    .ifPresent(t -> dao.markUsed(t.tokenId(), now()));
            // on the same connection: a second one per request would halve what the pool can serve
            return holder.flatMap(t -> dao.userById(t.userId())).map(u -> {
                Map<String, Role> roles = new HashMap<>();
                dao.memberships(u.id()).forEach(m -> roles.put(m.organization(), Role.ofWord(m.role()).orElseThrow()));
                return new Principal(u.id(), u.login(), u.name(), u.siteAdmin(), roles);
            });
        });
    }

    /** @throws ApiException 400 for a login outside {@link #LOGIN_RULE}, 409 when it is taken */
    public UserDao.User create(String login, String name, boolean siteAdmin) {
        if (login == null || !LOGIN.matcher(login).matches()) {
            throw ApiException.invalid("login", "a login is " + LOGIN_RULE + ", got " + ApiException.quote(login));
        }
        return jdbi.inTransaction(h -> {
            UserDao dao = h.attach(UserDao.class);
            if (!dao.insertUser(ActorIds.of(login), login, name == null || name.isBlank() ? login : name.strip(),
                    siteAdmin, now())) {
                throw ApiException.conflict("there is a user " + login + " already");
            }
            return dao.user(login).orElseThrow();
        });
    }

    public List<UserDao.User> list() {
        return jdbi.withHandle(h -> h.attach(UserDao.class).users());
    }

    /** @throws ApiException 404 for an unknown login */
    public UserDao.User user(String login) {
        return jdbi.withHandle(h -> h.attach(UserDao.class).user(login))
                .orElseThrow(() -> ApiException.notFound("no user " + ApiException.quote(login)));
    }

    /** Issues a token for {@code login}, valid for {@code lifetime}. */
    public IssuedToken issueToken(String login, String label, Duration lifetime) {
        UserDao.User user = user(login);
        ApiToken token = ApiToken.generate(TokenKind.USER, random);
        UUID id = UUID.randomUUID();
        OffsetDateTime now = now();
        jdbi.useHandle(h -> h.attach(UserDao.class).insertToken(id, user.id(), token.hash().bytes(),
                label == null || label.isBlank() ? "token" : label.strip(), now, now.plus(lifetime)));
        return new IssuedToken(token.value(), tokens(login).stream().filter(t -> t.id().equals(id)).findFirst()
                .orElseThrow());
    }

    public List<UserDao.Token> tokens(String login) {
        UUID userId = user(login).id();
        return jdbi.withHandle(h -> h.attach(UserDao.class).tokens(userId));
    }

    /** @throws ApiException 404 for an unknown user, or a token of theirs that is not live */
    public void revokeToken(String login, UUID tokenId) {
        UUID userId = user(login).id();
        if (!jdbi.withHandle(h -> h.attach(UserDao.class).revoke(userId, tokenId, now()))) {
            throw ApiException.notFound("user " + login + " has no live token " + tokenId);
        }
    }

    public void putMember(String organization, String login, Role role) {
        UUID userId = user(login).id();
        jdbi.useHandle(h -> h.attach(UserDao.class).putMember(organization, userId, role.word(), now()));
    }

    public List<UserDao.Member> members(String organization) {
        return jdbi.withHandle(h -> h.attach(UserDao.class).members(organization));
    }

    /** @throws ApiException 404 when {@code login} is not a member of {@code organization} */
    public void removeMember(String organization, String login) {
        UUID userId = user(login).id();
        if (!jdbi.withHandle(h -> h.attach(UserDao.class).deleteMember(organization, userId))) {
            throw ApiException.notFound(login + " is not a member of " + organization);
        }
    }

    /** Adds {@code login} to the group {@code group} of {@code organization} (made by its first member). */
    public void addToGroup(String organization, String group, String login) {
        if (group == null || !LOGIN.matcher(group).matches()) {
            throw ApiException.invalid("group", "a group's name is " + LOGIN_RULE);
        }
        UUID userId = user(login).id();
        jdbi.useHandle(h -> h.attach(UserDao.class).putGroupMember(organization, group, userId, now()));
    }

    /** @throws ApiException 404 when {@code login} is not in the group */
    public void removeFromGroup(String organization, String group, String login) {
        UUID userId = user(login).id();
        if (!jdbi.withHandle(h -> h.attach(UserDao.class).deleteGroupMember(organization, group, userId))) {
            throw ApiException.notFound(login + " is not in group " + group + " of " + organization);
        }
    }

    /** The organization's groups, each with its members' logins, in name order. */
    public Map<String, List<String>> groups(String organization) {
        Map<String, List<String>> groups = new TreeMap<>();
        jdbi.withHandle(h -> h.attach(UserDao.class).groupMembers(organization)).forEach(m ->
                groups.computeIfAbsent(m.organization(), g -> new ArrayList<>()).add(m.login()));
        return groups;
    }

    private OffsetDateTime now() {
        Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
        return now.atOffset(ZoneOffset.UTC);
    }
}
