package dev.gantry.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gantry.server.auth.ApiToken;
import dev.gantry.server.auth.TokenHash;
import dev.gantry.server.auth.TokenKind;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.stream.Stream;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The token files under GANTRY_HOME across restarts of the server on one database: created owner-only on the first
 * start, kept on later ones, replaced (and the old token revoked) when one goes missing or stops matching.
 */
class TokenFilesIT {
    /** A database of its own for each test: each starts from a server that never ran. */
    @RegisterExtension
    final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension();

    @TempDir
    Path home;

    @Test
    void the_first_start_writes_both_tokens_owner_only_and_the_database_holds_only_their_hashes() throws IOException {
        try (TestServer server = TestServer.start(pg.dataSource(), home)) {
            for (TokenKind kind : List.of(TokenKind.ADMIN, TokenKind.AGENT)) {
                Path file = home.resolve(kind.fileName());
                String token = server.token(kind);

                assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
                assertThat(ApiToken.parse(token)).get().extracting(ApiToken::kind).isEqualTo(kind);
                assertThat(storedHash(kind)).isEqualTo(TokenHash.of(token).toString());
            }
            assertThat(server.api().get("/api/v2/project").status()).isEqualTo(200);
        }
        // and the server's own id, which names its queue workers across restarts (ServerInstance), and the master key
        assertThat(filesIn(home)).containsExactlyInAnyOrder("admin-token", "agent-token", ServerInstance.FILE,
                GantryServer.MASTER_KEY_FILE);
    }

    @Test
    void a_restart_keeps_both_tokens() throws IOException {
        String admin;
        String agent;
        try (TestServer first = TestServer.start(pg.dataSource(), home)) {
            admin = first.token(TokenKind.ADMIN);
            agent = first.token(TokenKind.AGENT);
        }

        try (TestServer second = TestServer.start(pg.dataSource(), home)) {
            assertThat(second.token(TokenKind.ADMIN)).isEqualTo(admin);
            assertThat(second.token(TokenKind.AGENT)).isEqualTo(agent);
            assertThat(second.api().withToken(admin).get("/api/v2/project").status()).isEqualTo(200);
        }
    }

    @Test
    void a_deleted_token_file_gets_a_new_token_and_the_old_one_stops_working() throws IOException {
        String oldAdmin;
        String agent;
        try (TestServer first = TestServer.start(pg.dataSource(), home)) {
            oldAdmin = first.token(TokenKind.ADMIN);
            agent = first.token(TokenKind.AGENT);
        }
        Files.delete(home.resolve("admin-token"));

        try (TestServer second = TestServer.start(pg.dataSource(), home)) {
            String newAdmin = second.token(TokenKind.ADMIN);

            assertThat(newAdmin).isNotEqualTo(oldAdmin);
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(home.resolve("admin-token"))))
                    .isEqualTo("rw-------");
            assertThat(storedHash(TokenKind.ADMIN)).isEqualTo(TokenHash.of(newAdmin).toString());
            assertThat(second.api().withToken(oldAdmin).get("/api/v2/project").status()).isEqualTo(401);
            assertThat(second.api().withToken(newAdmin).get("/api/v2/project").status()).isEqualTo(200);
            assertThat(second.token(TokenKind.AGENT)).isEqualTo(agent);
        }
    }

    @Test
    void a_token_file_that_does_not_match_the_database_gets_a_new_token() throws IOException {
        try (TestServer first = TestServer.start(pg.dataSource(), home)) {
            first.token(TokenKind.ADMIN);
        }
        Files.writeString(home.resolve("admin-token"), "edited by hand\n");

        try (TestServer second = TestServer.start(pg.dataSource(), home)) {
            assertThat(ApiToken.parse(second.token(TokenKind.ADMIN))).isPresent();
            assertThat(second.api().get("/api/v2/project").status()).isEqualTo(200);
        }
    }

    @Test
    void a_database_without_hashes_adopts_the_tokens_in_the_home_directory() throws IOException {
        String admin;
        try (TestServer first = TestServer.start(pg.dataSource(), home)) {
            admin = first.token(TokenKind.ADMIN);
        }
        Jdbi.create(pg.dataSource()).useHandle(h -> h.execute("DELETE FROM gantry.api_token"));

        try (TestServer second = TestServer.start(pg.dataSource(), home)) {
            assertThat(second.token(TokenKind.ADMIN)).isEqualTo(admin);
            assertThat(second.api().get("/api/v2/project").status()).isEqualTo(200);
        }
    }

    private String storedHash(TokenKind kind) {
        return Jdbi.create(pg.dataSource()).withHandle(h -> h.createQuery(
                "SELECT encode(token_hash, 'hex') FROM gantry.api_token WHERE kind = :kind")
                .bind("kind", kind.label()).mapTo(String.class).one());
    }

    private static List<String> filesIn(Path directory) throws IOException {
        try (Stream<Path> files = Files.list(directory)) {
            return files.map(file -> file.getFileName().toString()).toList();
        }
    }
}
