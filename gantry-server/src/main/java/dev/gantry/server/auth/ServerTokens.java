package dev.gantry.server.auth;

import dev.gantry.server.ServerStartException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.InstantSource;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.JdbiException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's tokens, made sure of at start, one kind at a time, in a transaction that locks the token table:
 * <ul>
 *   <li>no hash in the database and no token file: a new token is generated (the first start);</li>
 *   <li>the file holds a token of the kind whose hash the database has: both are kept (every later start);</li>
 *   <li>the file holds a token of the kind and the database no hash (a new database for an existing home): the
 *       file's token is stored, so that it keeps working;</li>
 *   <li>the database has a hash but the file is missing, holds no token of the kind, or one that does not match: a
 *       new token replaces both, and a warning says why; the old token stops working.</li>
 * </ul>
 * The file is written before the transaction commits: should the commit fail, the next start finds a file that does
 * not match and replaces it. Immutable once made.
 */
public final class ServerTokens {
    private static final Logger LOG = LoggerFactory.getLogger(ServerTokens.class);

    private final Path home;
    private final Map<TokenKind, TokenHash> hashes;

    private ServerTokens(Path home, Map<TokenKind, TokenHash> hashes) {
        this.home = home;
        this.hashes = hashes;
    }

    /**
     * Makes sure both tokens exist, as described above.
     *
     * @param home where the token files live ({@code $GANTRY_HOME}); created if missing
     * @throws ServerStartException if a token file cannot be read or written, or the database cannot be reached
     */
    public static ServerTokens ensure(Jdbi jdbi, Path home, InstantSource clock, SecureRandom random) {
        Map<TokenKind, TokenHash> hashes = new EnumMap<>(TokenKind.class);
        for (TokenKind kind : List.of(TokenKind.ADMIN, TokenKind.AGENT)) {
            TokenFile file = new TokenFile(home.resolve(kind.fileName()));
            try {
                hashes.put(kind, jdbi.inTransaction(h -> ensure(h.attach(TokenDao.class), kind, file, clock, random)));
            } catch (IOException | UncheckedIOException e) {
                throw new ServerStartException("Cannot read or write the " + kind.label() + " token file "
                        + file.path() + ": " + e.getMessage(), e);
            } catch (JdbiException e) {
                throw new ServerStartException("Cannot read or store the " + kind.label() + " token's hash in the "
                        + "database: " + e.getMessage(), e);
            }
        }
        return new ServerTokens(home, hashes);
    }

    private static TokenHash ensure(TokenDao tokens, TokenKind kind, TokenFile file, InstantSource clock,
                                    SecureRandom random) throws IOException {
        tokens.lockForIssuing();
        Optional<TokenHash> stored = tokens.hashOf(kind.label()).map(TokenHash::fromBytes);
        Optional<String> text = file.read();
        Optional<ApiToken> onDisk = text.flatMap(ApiToken::parse).filter(token -> token.kind() == kind);
        if (onDisk.isPresent() && stored.isPresent() && stored.get().matches(onDisk.get().hash())) {
            return stored.get();
        }
        if (onDisk.isPresent() && stored.isEmpty()) {
            store(tokens, kind, onDisk.get().hash(), clock);
            LOG.info("Stored the {} token from {} in a database that had none", kind.label(), file.path());
            return onDisk.get().hash();
        }
        ApiToken issued = ApiToken.generate(kind, random);
        store(tokens, kind, issued.hash(), clock);
        file.write(issued.value());
        if (stored.isEmpty()) {
            LOG.info("Issued the {} token, written to {}", kind.label(), file.path());
        } else {
            String why = text.isEmpty() ? "was missing" : onDisk.isEmpty() ? "held no " + kind.label() + " token"
                    : "held a token the database does not know";
            LOG.warn("The {} token file {} {}: issued a new {} token in its place; the old one no longer works",
                    kind.label(), file.path(), why, kind.label());
        }
        return issued.hash();
    }

    private static void store(TokenDao tokens, TokenKind kind, TokenHash hash, InstantSource clock) {
        tokens.store(kind.label(), hash.bytes(),
                clock.instant().truncatedTo(ChronoUnit.MICROS).atOffset(ZoneOffset.UTC));
    }

    /** The hash a presented token of {@code kind} must match. */
    public TokenHash hash(TokenKind kind) {
        return hashes.get(kind);
    }

    /** Where the token of {@code kind} is for the operator: {@code $GANTRY_HOME/admin-token} or {@code agent-token}. */
    public Path file(TokenKind kind) {
        return home.resolve(kind.fileName());
    }
}
