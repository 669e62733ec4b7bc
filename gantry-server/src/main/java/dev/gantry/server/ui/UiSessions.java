package dev.gantry.server.ui;

import dev.gantry.server.auth.ApiAuthentication;
import dev.gantry.server.auth.ApiToken;
import dev.gantry.server.auth.Principal;
import dev.gantry.server.auth.TokenHash;
import dev.gantry.server.auth.TokenKind;
import io.javalin.http.Context;
import io.javalin.http.Cookie;
import io.javalin.http.SameSite;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.Locale;
import java.util.Optional;
import org.jdbi.v3.core.Jdbi;

/**
 * Sign-in to the web UI: a token (a user's, or the admin token) for a session cookie. The cookie is HttpOnly,
 * SameSite=Lax and Secure over HTTPS; it carries a random id of which only the hash is stored. Every form of a session
 * sends its CSRF token back, and every state-changing request must come from this server's own pages (its Origin,
 * when the browser sends one, is this server). A session lives {@link #LIFETIME} and ends with its token: each
 * request asks again who the token is. Thread-safe.
 */
final class UiSessions {
    static final String COOKIE = "gantry_session";
    static final String CSRF_FIELD = "_csrf";
    static final String CSRF_HEADER = "X-CSRF-Token";
    static final Duration LIFETIME = Duration.ofHours(12);

    /** Who is signed in, and the token their forms must send. */
    record Session(Principal principal, String csrf) {
    }

    private final Jdbi jdbi;
    private final ApiAuthentication authentication;
    private final InstantSource clock;
    private final SecureRandom random;

    UiSessions(Jdbi jdbi, ApiAuthentication authentication, InstantSource clock, SecureRandom random) {
        this.jdbi = jdbi;
        this.authentication = authentication;
        this.clock = clock;
        this.random = random;
    }

    /**
     * Signs in with {@code token} and sets the session cookie.
     *
     * @throws dev.gantry.server.http.ApiException 401 saying what is wrong with the token
     */
    void signIn(Context ctx, String token) {
        authentication.authenticate(token.strip());
        ApiToken parsed = ApiToken.parse(token.strip()).orElseThrow();
        String id = randomText();
        Instant now = clock.instant();
        jdbi.useHandle(h -> {
            h.createUpdate("DELETE FROM gantry.ui_session WHERE expires_at < :now")
                    .bind("now", now.atOffset(ZoneOffset.UTC)).execute();
            h.createUpdate("""
                            INSERT INTO gantry.ui_session (id_hash, token_kind, token_hash, csrf, created_at, expires_at)
                            VALUES (:idHash, :kind, :tokenHash, :csrf, :now, :expires)
                            """)
                    .bind("idHash", TokenHash.of(id).bytes())
                    .bind("kind", parsed.kind().label())
                    .bind("tokenHash", parsed.hash().bytes())
                    .bind("csrf", randomText())
                    .bind("now", now.atOffset(ZoneOffset.UTC))
                    .bind("expires", now.plus(LIFETIME).atOffset(ZoneOffset.UTC))
                    .execute();
        });
        ctx.cookie(new Cookie(COOKIE, id, "/", (int) LIFETIME.toSeconds(), secure(ctx), true, null, SameSite.LAX));
    }

    /** The session of the request's cookie, if it is valid and its token still is. */
    Optional<Session> of(Context ctx) {
        return byCookie(ctx.cookie(COOKIE));
    }

    /** The session whose cookie is {@code id}, if it is valid and its token still is: a live stream asks again. */
    Optional<Session> byCookie(String id) {
        if (id == null || id.isBlank() || id.length() > 100) {
            return Optional.empty();
        }
        OffsetDateTime now = clock.instant().atOffset(ZoneOffset.UTC);
        return jdbi.withHandle(h -> h.createQuery("""
                        SELECT token_kind, token_hash, csrf FROM gantry.ui_session
                        WHERE id_hash = :idHash AND expires_at > :now
                        """)
                .bind("idHash", TokenHash.of(id).bytes())
                .bind("now", now)
                .map((rs, c) -> new Stored(TokenKind.valueOf(rs.getString(1).toUpperCase(Locale.ROOT)),
                        TokenHash.fromBytes(rs.getBytes(2)), rs.getString(3)))
                .findOne())
                .flatMap(stored -> authentication.byHash(stored.kind(), stored.tokenHash())
                        .map(principal -> new Session(principal, stored.csrf())));
    }

    /** Ends the request's session, if any, and clears the cookie. */
    void signOut(Context ctx) {
        String id = ctx.cookie(COOKIE);
        if (id != null && id.length() <= 100) {
            jdbi.useHandle(h -> h.createUpdate("DELETE FROM gantry.ui_session WHERE id_hash = :idHash")
                    .bind("idHash", TokenHash.of(id).bytes()).execute());
        }
        ctx.cookie(new Cookie(COOKIE, "", "/", 0, secure(ctx), true, null, SameSite.LAX));
    }

    /** Whether a state-changing request carries {@code session}'s CSRF token, in the form or in the header. */
    static boolean csrfMatches(Context ctx, Session session) {
        String sent = ctx.header(CSRF_HEADER);
        if (sent == null) {
            sent = ctx.formParam(CSRF_FIELD);
        }
        return sent != null && MessageDigest.isEqual(sent.getBytes(StandardCharsets.UTF_8),
                session.csrf().getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Whether a state-changing request comes from a page of this server: browsers send Origin on every POST from a
     * form or a script; a request without one (an old browser, or not a browser) is judged by its CSRF token alone.
     */
    static boolean sameOrigin(Context ctx) {
        String origin = ctx.header("Origin");
        if (origin == null || origin.equals("null")) {
            return origin == null;
        }
        String host = ctx.header("Host");
        return host != null && (origin.equals("http://" + host) || origin.equals("https://" + host));
    }

    private static boolean secure(Context ctx) {
        return "https".equals(ctx.scheme());
    }

    private String randomText() {
        byte[] bytes = new byte[32];
        random.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    private record Stored(TokenKind kind, TokenHash tokenHash, String csrf) {
    }
}
