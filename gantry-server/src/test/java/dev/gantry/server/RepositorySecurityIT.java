package dev.gantry.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gantry.server.project.RepositoryPolicy;
import dev.gantry.server.project.RepositoryUrls;
import dev.gantry.server.secret.MasterKeys;
import dev.gantry.server.secret.SecretBox;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.sqlobject.SqlObjectPlugin;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server with the default repository policy cannot be made to read its own disk or probe its networks through a
 * project's {@code repo_url}, neither when the project is made nor when a later fetch finds the host elsewhere, and
 * no answer echoes the credentials a URL holds.
 */
class RepositorySecurityIT {
    @RegisterExtension
    final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension(8);
    @TempDir
    Path home;

    TestServer server;

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void directories_loopback_metadata_and_private_hosts_are_refused_alike_without_revealing_what_is_there() {
        server = TestServer.start(pg.dataSource(), home, new ServerSettings(0));
        List<String> answers = new ArrayList<>();
        for (String url : List.of("/etc", "/root", "/nonexistent", "file:///etc", "http://127.0.0.1:5432/x/y",
                "https://127.0.0.1:22/x/y", "https://169.254.169.254/latest/meta-data", "git@10.0.0.1:acme/app.git",
                "https://localhost/acme/app.git")) {
            ApiClient.Answer answer = server.api().post("/api/v2/project",
                    "{\"name\": \"probe\", \"organization\": \"acme\", \"repo_url\": \"" + url + "\"}");
            assertThat(answer.status()).as(url).isEqualTo(400);
            answers.add(answer.text("message"));
        }

        // /etc (there), /root (there, not everyone's) and /nonexistent get the same answer: nothing to probe with.
        assertThat(answers.subList(0, 3)).containsOnly(answers.get(0));
        assertThat(answers).allSatisfy(message -> assertThat(message)
                .doesNotContain("not a directory", "does not exist", "refused", "SSH", "PostgreSQL"));
        assertThat(server.count("gantry.project")).isZero();
    }

    @Test
    void a_url_s_credentials_are_never_echoed() {
        server = TestServer.start(pg.dataSource(), home, new ServerSettings(0));

        ApiClient.Answer created = server.api().post("/api/v2/project",
                "{\"name\": \"app\", \"repo_url\": \"https://bot:s3cret-token@github.com/acme/app.git\"}");

        assertThat(created.status()).as(created.body()).isEqualTo(201);
        assertThat(created.text("vcs_url")).isEqualTo("https://github.com/acme/app.git");
        assertThat(server.api().get("/api/v2/project/gh/acme/app").body()).doesNotContain("s3cret");
        assertThat(server.api().get("/api/v2/project").body()).doesNotContain("s3cret");
        // At rest: the URL without them, and the credentials sealed apart, opened only for fetches and checkouts.
        Map<String, Object> row = server.jdbi().withHandle(h -> h.createQuery(
                "SELECT id, vcs_url, vcs_credentials FROM gantry.project").mapToMap().one());
        assertThat(row.get("vcs_url")).isEqualTo("https://github.com/acme/app.git");
        assertThat(new String((byte[]) row.get("vcs_credentials"), StandardCharsets.ISO_8859_1))
                .doesNotContain("s3cret", "bot");
        Jdbi jdbi = Jdbi.create(pg.dataSource()).installPlugin(new SqlObjectPlugin());
        RepositoryUrls urls = new RepositoryUrls(new SecretBox(jdbi, MasterKeys.open(home.resolve("master-key")),
                InstantSource.system()));
        String bare = "https://github.com/acme/app.git";
        String fetched = jdbi.withHandle(h -> urls.fetchable(h, (UUID) row.get("id"), bare));
        assertThat(fetched).isEqualTo("https://bot:s3cret-token@github.com/acme/app.git");
    }

    @Test
    void a_fetch_checks_the_host_again_and_errors_the_pipeline_without_git_s_words() {
        server = TestServer.start(pg.dataSource(), home,
                new ServerSettings(0).withRepositories(RepositoryPolicy.ANYTHING));
        server.createProject("acme", "internal", "https://127.0.0.1:9/acme/internal.git");
        server.close();
        server = TestServer.start(pg.dataSource(), home, new ServerSettings(0));

        String id = server.api().post("/api/v2/project/gh/acme/internal/pipeline", "{\"branch\": \"main\"}")
                .text("id");

        JsonNode pipeline = await().atMost(Duration.ofSeconds(30)).until(
                () -> server.api().get("/api/v2/pipeline/" + id).json(),
                p -> p.path("state").asText().equals("errored"));
        assertThat(pipeline.path("errors").get(0).path("message").asText())
                .contains("could not fetch the repository", "loopback, link-local or private network")
                .doesNotContain("127.0.0.1");
    }
}
