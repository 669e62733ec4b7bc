package dev.gantry.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gantry.cli.client.GantryClient;
import dev.gantry.server.GantryServer;
import dev.gantry.server.ServerSettings;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The commands that manage a running server, run as processes against a real one: {@code gantry orb} (import of a
 * directory of packed orbs, the compiler's test orbs: widely used published orbs, packed from their sources, see
 * orbs/SOURCES.md there; list, versions, show, and publish's refusal of a changed release), {@code gantry user} and
 * {@code gantry master-key rotate}.
 */
class AdminCommandsIT {
    @RegisterExtension
    static final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension();

    static final Path ORBS = Path.of("../gantry-config/src/test/resources/orbs");

    @TempDir
    Path home;

    GantryServer server;

    private record Run(int code, String out, String err) {
    }

    @BeforeEach
    void start() {
        server = GantryServer.start(new ServerSettings(0), pg.dataSource(), home);
        pg.truncate("gantry.orb_version");
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void a_directory_of_orbs_is_imported_listed_and_shown() throws Exception {
        Run imported = gantry("orb", "import", ORBS.toString());
        assertThat(imported.code()).as(imported.err()).isZero();
        assertThat(imported.out()).contains("circleci/slack@1.0.0: created", "circleci/jq@2.2.0: created",
                "circleci/node@7.2.1: created", "circleci/continuation@2.0.1: created");

        Run again = gantry("orb", "import", ORBS.resolve("circleci/slack@1.0.0.yml").toString());
        assertThat(again.out()).isEqualTo("circleci/slack@1.0.0: unchanged\n");

        Run list = gantry("orb", "list");
        assertThat(list.out().lines().toList()).first().asString().startsWith("ORB");
        assertThat(list.out()).containsPattern("circleci/slack +2 +6\\.1\\.3")
                .containsPattern("circleci/path-filtering +1 +2\\.1\\.0");

        Run versions = gantry("orb", "versions", "circleci/slack");
        assertThat(versions.out().lines().map(l -> l.split(" +")[0]).toList()).containsExactly("6.1.3", "1.0.0");
        assertThat(versions.out()).contains("imported");

        Run show = gantry("orb", "show", "circleci/slack@1");
        assertThat(show.code()).isZero();
        assertThat(show.out()).startsWith("# circleci/slack@1.0.0\n")
                .endsWith(Files.readString(ORBS.resolve("circleci/slack@1.0.0.yml")));
    }

    @Test
    void publish_stores_a_new_release_and_refuses_to_change_one() throws Exception {
        Path orb = home.resolve("slack.yml");
        Files.writeString(orb, Files.readString(ORBS.resolve("circleci/slack@1.0.0.yml")));

        Run published = gantry("orb", "publish", orb.toString(), "acme/slack@0.1.0");
        Files.writeString(orb, "\n# changed\n", java.nio.file.StandardOpenOption.APPEND);
        Run changed = gantry("orb", "publish", orb.toString(), "acme/slack@0.1.0");
        Run bad = gantry("orb", "publish", orb.toString(), "acme/slack");

        assertThat(published.code()).as(published.err()).isZero();
        assertThat(published.out()).startsWith("acme/slack@0.1.0: created (sha256 ");
        assertThat(changed.code()).isEqualTo(1);
        assertThat(changed.err()).contains("HTTP 409", "a release never changes");
        assertThat(bad.code()).isEqualTo(2);
        assertThat(bad.err()).contains("'acme/slack' is not namespace/name@version");
    }

    @Test
    void a_user_is_added_given_a_role_and_a_token_that_is_theirs() throws Exception {
        Run added = gantry("user", "add", "ada", "--name", "Ada L.");
        Run role = gantry("user", "role", "acme", "ada", "member");
        Run token = gantry("user", "token", "ada", "--label", "laptop", "--days", "7");
        Run badRole = gantry("user", "role", "acme", "ada", "owner");

        assertThat(added.code()).as(added.err()).isZero();
        assertThat(added.out()).isEqualTo("user ada added\n");
        assertThat(role.out()).isEqualTo("ada is a member of acme\n");
        assertThat(token.code()).as(token.err()).isZero();
        String issued = token.out().lines().findFirst().orElseThrow();
        assertThat(issued).startsWith("gnt_user_");
        GantryClient asAda = new GantryClient(server.url(), issued);
        assertThat(asAda.get("/api/v2/me").json().path("login").asText()).isEqualTo("ada");
        assertThat(asAda.get("/api/v2/audit-log").status()).as("not a site admin").isEqualTo(403);
        assertThat(badRole.code()).isEqualTo(2);
        assertThat(gantry("user", "add", "ada").code()).as("taken").isEqualTo(1);
    }

    @Test
    void the_master_key_rotates_while_the_server_runs() throws Exception {
        Run rotated = gantry("master-key", "rotate");

        assertThat(rotated.code()).as(rotated.err()).isZero();
        assertThat(rotated.out()).startsWith("master key mk-").contains("retired [\"mk-");
    }

    private Run gantry(String... arguments) throws IOException, InterruptedException {
        List<String> command = GantryProcesses.command(List.of(arguments));
        Path out = Files.createTempFile(home, "out", ".txt");
        Path err = Files.createTempFile(home, "err", ".txt");
        ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
        builder.environment().put("GANTRY_HOME", home.toString());
        builder.environment().put(ServerOptions.URL_VARIABLE, server.url().toString());
        builder.environment().remove(ServerOptions.TOKEN_VARIABLE);
        Process process = builder.start();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("gantry " + String.join(" ", arguments) + " did not exit within 60 s");
        }
        return new Run(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }
}
