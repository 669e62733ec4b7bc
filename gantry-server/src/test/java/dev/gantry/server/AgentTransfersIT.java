package dev.gantry.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gantry.server.agent.AgentSettings;
import dev.gantry.server.auth.TokenKind;
import dev.gantry.server.retention.RetentionSettings;
import dev.gantry.server.retention.RetentionSweeper;
import dev.gantry.server.storage.BlobLayout;
import dev.gantry.server.storage.FileBlobStore;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.stream.Stream;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.sqlobject.SqlObjectPlugin;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Caches, workspace layers, artifacts and test results as an agent sends them: cache keys matched exactly or by
 * prefix (newest wins) and immutable, uploads beyond the JSON body limit, workspace layers of the required jobs in
 * order (a rerun's carried-over job counting as its original), and untrusted artifact paths refused.
 */
class AgentTransfersIT {
    @RegisterExtension
    static final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension(32);

    @TempDir
    static Path home;

    static TestServer server;
    static AgentClient agent;
    RunFixtures runs;
    UUID workflow;
    String agentId;

    @BeforeAll
    static void start() {
        server = TestServer.start(pg.dataSource(), home, new ServerSettings(0, AgentSettings.defaults()
                .withPollTimeout(Duration.ofMillis(300))));
        agent = new AgentClient(server.api().anonymous(), server.token(TokenKind.AGENT));
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @BeforeEach
    void clean() {
        pg.truncate("gantry.project", "gantry.agent", "gantry_queue.message");
        runs = new RunFixtures(server.jdbi());
        workflow = runs.workflow("build");
        agentId = agent.registered("host-1");
    }

    @Test
    void caches_match_exactly_or_by_prefix_with_the_newest_winning() {
        runs.job(workflow, "test").insert();
        AgentClient.Claimed task = agent.claimed(agentId);
        assertThat(saveCache(task, "v1-deps-aaa", bytes(10)).status()).isEqualTo(201);
        assertThat(saveCache(task, "v1-deps-bbb", bytes(20)).status()).isEqualTo(201);
        assertThat(saveCache(task, "v1-deps-b", bytes(30)).status()).isEqualTo(201);

        assertThat(lookup(task, "v1-deps-aaa").text("key")).isEqualTo("v1-deps-aaa");
        assertThat(lookup(task, "v1-deps-").text("key")).isEqualTo("v1-deps-b");
        assertThat(lookup(task, "v1-deps-b").text("key")).isEqualTo("v1-deps-b");
        assertThat(lookup(task, "v1-deps-bb").text("key")).isEqualTo("v1-deps-bbb");
        assertThat(lookup(task, "v2-", "v1-deps-a").text("key")).isEqualTo("v1-deps-aaa");
        assertThat(lookup(task, "v1-deps-aaa").json().get("size").asLong()).isEqualTo(10);
        assertThat(lookup(task, "v2-").status()).isEqualTo(404);
        assertThat(lookup(task, "v1_deps").status()).as("LIKE wildcards are literal").isEqualTo(404);
    }

    @Test
    void a_cache_key_is_immutable_and_downloads_what_was_saved() {
        runs.job(workflow, "test").insert();
        AgentClient.Claimed task = agent.claimed(agentId);
        byte[] archive = bytes(1000);
        String key = "v1-deps/linux x64+node20";

        assertThat(saveCache(task, key, archive).status()).isEqualTo(201);
        assertThat(saveCache(task, key, bytes(5)).status()).isEqualTo(409);

        ApiClient.Answer download = agent.get(task.path() + "/cache/" + encode(key), task.lease());
        assertThat(download.status()).isEqualTo(200);
        assertThat(download.header("Content-Type")).isEqualTo("application/gzip");
        assertThat(Arrays.equals(agent.download(task.path() + "/cache/" + encode(key), task.lease()), archive))
                .as("the archive downloads as it was saved").isTrue();
        assertThat(agent.get(task.path() + "/cache/other", task.lease()).status()).isEqualTo(404);
    }

    @Test
    void uploads_beyond_the_json_limit_work_while_a_json_body_beyond_it_is_413() {
        runs.job(workflow, "test").insert();
        AgentClient.Claimed task = agent.claimed(agentId);
        byte[] archive = bytes(3 << 20);

        assertThat(saveCache(task, "big", archive).status()).isEqualTo(201);
        assertThat(Arrays.equals(agent.download(task.path() + "/cache/big", task.lease()), archive))
                .as("the archive downloads as it was saved").isTrue();
        ApiClient.Answer json = agent.post(AgentClient.PREFIX + "/register",
                "{\"name\": \"" + "x".repeat(2 << 20) + "\"}");
        assertThat(json.status()).isEqualTo(413);
    }

    @Test
    void a_job_sees_the_layers_of_the_jobs_it_requires_transitively_oldest_first() {
        UUID a = runs.job(workflow, "a").insert();
        UUID d = runs.job(workflow, "d").insert();
        UUID b = runs.job(workflow, "b").requires("a").insert();
        UUID c = runs.job(workflow, "c").requires("b").insert();
        runs.job(workflow, "e").requires("c", "a").insert();
        String layerA = persist(agent.claimed(agentId), a);
        persist(agent.claimed(agentId), d);
        String layerB = persist(agent.claimed(agentId), b);
        String layerC = persist(agent.claimed(agentId), c);
        AgentClient.Claimed e = agent.claimed(agentId);

        JsonNode layers = agent.get(e.path() + "/workspace", e.lease()).json().get("layers");

        assertThat(ids(layers)).containsExactly(layerA, layerB, layerC);
        ApiClient.Answer bytes = agent.get(e.path() + "/workspace/" + layerB, e.lease());
        assertThat(bytes.status()).isEqualTo(200);
        assertThat(bytes.body()).isEqualTo("layer of " + b);
    }

    @Test
    void a_carried_over_job_of_a_rerun_counts_as_its_original() {
        UUID a = runs.job(workflow, "a").insert();
        String layerA = persist(agent.claimed(agentId), a);
        UUID rerun = runs.workflow("build");
        runs.job(rerun, "a").status("success").copiedFrom(a).insert();
        runs.job(rerun, "b").requires("a").insert();
        AgentClient.Claimed b = agent.claimed(agentId);

        assertThat(ids(agent.get(b.path() + "/workspace", b.lease()).json().get("layers"))).containsExactly(layerA);
    }

    @Test
    void artifacts_are_stored_under_their_path_and_a_second_upload_replaces_the_first() throws Exception {
        UUID job = runs.job(workflow, "test").insert();
        AgentClient.Claimed task = agent.claimed(agentId);

        assertThat(agent.bytes("PUT", task.path() + "/artifacts/reports/index.html", "<p>v1</p>".getBytes(),
                task.lease()).status()).isEqualTo(201);
        assertThat(agent.bytes("PUT", task.path() + "/artifacts/reports/index.html", "<p>v2</p>".getBytes(),
                task.lease()).status()).isEqualTo(201);

        Path stored = home.resolve("artifacts").resolve(job.toString()).resolve("0").resolve("reports/index.html");
        assertThat(Files.readString(stored)).isEqualTo("<p>v2</p>");
        assertThat(server.count("gantry.artifact")).isEqualTo(1);
    }

    @Test
    void caches_layers_and_artifacts_past_retention_go_with_their_files_and_a_cache_key_is_free_again()
            throws Exception {
        UUID job = runs.job(workflow, "test").insert();
        runs.job(workflow, "deploy").requires("test").insert();
        AgentClient.Claimed task = agent.claimed(agentId);
        String layer = persist(task, job);
        assertThat(saveCache(task, "v1-old", bytes(100)).status()).isEqualTo(201);
        assertThat(saveCache(task, "v1-crashed", bytes(5)).status()).isEqualTo(201);
        assertThat(agent.bytes("PUT", task.path() + "/artifacts/reports/deep/index.html", "<p>old</p>".getBytes(),
                task.lease()).status()).isEqualTo(201);
        Path caches = home.resolve("caches").resolve(runs.projectId.toString());
        // A sweep that crashed after deleting this file, before its row.
        Files.delete(caches.resolve(BlobLayout.cache(runs.projectId, "v1-crashed").fileName()));
        age(20);
        assertThat(saveCache(task, "v1-new", bytes(10)).status()).isEqualTo(201);
        RetentionSweeper sweeper = new RetentionSweeper(
                Jdbi.create(pg.dataSource()).installPlugin(new SqlObjectPlugin()), new FileBlobStore(home),
                RetentionSettings.defaults(), InstantSource.system());

        // 20 days on: past the caches' and workspaces' 15 days, within the artifacts' 30.
        assertThat(sweeper.sweep()).isEqualTo(new RetentionSweeper.Swept(2, 105, 1, 45, 0, 0));
        assertThat(home.resolve("workspaces").resolve(workflow.toString())).doesNotExist();
        AgentClient.Claimed attaching = agent.claimed(agentId);
        ApiClient.Answer listed = agent.get(attaching.path() + "/workspace", attaching.lease());
        assertThat(listed.status()).isEqualTo(410);
        assertThat(listed.text("message")).startsWith("the workspace expired: a layer persisted at ")
                .contains("past its retention (GANTRY_RETENTION_WORKSPACES); rerun the workflow from the start");
        assertThat(agent.get(attaching.path() + "/workspace/" + layer, attaching.lease()).status()).isEqualTo(404);
        assertThat(lookup(task, "v1-old").status()).isEqualTo(404);
        assertThat(lookup(task, "v1-crashed").status()).isEqualTo(404);
        assertThat(lookup(task, "v1-new").text("key")).isEqualTo("v1-new");
        try (Stream<Path> files = Files.list(caches)) {
            assertThat(files).containsExactly(caches.resolve(BlobLayout.cache(runs.projectId, "v1-new").fileName()));
        }
        assertThat(saveCache(task, "v1-old", bytes(7)).status()).as("the key is free again").isEqualTo(201);
        assertThat(agent.download(task.path() + "/cache/v1-old", task.lease())).hasSize(7);

        age(20);
        assertThat(sweeper.sweep()).isEqualTo(new RetentionSweeper.Swept(2, 17, 0, 0, 1, 10));
        assertThat(server.count("gantry.artifact")).isZero();
        assertThat(home.resolve("artifacts").resolve(job.toString())).as("emptied directories go").doesNotExist();
        assertThat(home.resolve("artifacts")).isDirectory();
        assertThat(sweeper.sweep()).isEqualTo(new RetentionSweeper.Swept(0, 0, 0, 0, 0, 0));
    }

    /** Makes every cache, workspace layer and artifact {@code days} older. */
    private static void age(int days) {
        server.jdbi().useHandle(h -> {
            h.execute("UPDATE gantry.cache_entry SET created_at = created_at - make_interval(days => ?)", days);
            h.execute("UPDATE gantry.workspace_layer SET created_at = created_at - make_interval(days => ?)", days);
            h.execute("UPDATE gantry.artifact SET created_at = created_at - make_interval(days => ?)", days);
        });
    }

    @Test
    void artifact_paths_that_could_leave_the_store_are_400() {
        runs.job(workflow, "test").insert();
        AgentClient.Claimed task = agent.claimed(agentId);

        for (String path : List.of("a/%2E%2E/%2E%2E/%2E%2E/escaped", "%2E%2E/escaped", "a/%00/b", "a//b",
                "%2Fetc%2Fescaped", "a%5C..%5Cescaped")) {
            ApiClient.Answer answer;
            try {
                answer = upload(task, path);
            } catch (java.io.UncheckedIOException reusedClosedConnection) {
                // Jetty refuses a NUL in the URI itself (an HTML 400) and then closes the connection, which the
                // JDK client may already have taken from its pool for the next request.
                answer = upload(task, path);
            }
            assertThat(answer.status()).as(path + ": " + answer.body()).isEqualTo(400);
        }
        assertThat(server.count("gantry.artifact")).isZero();
        try (Stream<Path> files = Files.walk(home)) {
            assertThat(files.filter(p -> p.getFileName().toString().equals("escaped"))).isEmpty();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void test_results_are_stored_in_batches_numbered_on() {
        UUID job = runs.job(workflow, "test").insert();
        AgentClient.Claimed task = agent.claimed(agentId);
        String batch = """
                {"tests": [{"classname": "a.B", "name": "works", "file": "a/B.java", "result": "success",
                            "run_time": 0.25, "message": null},
                           {"classname": "a.B", "name": "breaks", "file": null, "result": "failure",
                            "run_time": 1.5, "message": "expected 1"}]}""";

        assertThat(agent.json("POST", task.path() + "/tests", batch, task.lease()).status()).isEqualTo(201);
        assertThat(agent.json("POST", task.path() + "/tests", batch, task.lease()).status()).isEqualTo(201);

        List<Integer> seqs = server.jdbi().withHandle(h -> h.createQuery(
                "SELECT seq FROM gantry.test_case WHERE job_id = ? ORDER BY seq").bind(0, job).mapTo(Integer.class)
                .list());
        assertThat(seqs).containsExactly(0, 1, 2, 3);
        ApiClient.Answer bad = agent.json("POST", task.path() + "/tests",
                "{\"tests\": [{\"name\": \"x\", \"result\": \"passed\"}]}", task.lease());
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.text("field")).isEqualTo("result");
    }

    private static ApiClient.Answer upload(AgentClient.Claimed task, String path) {
        return agent.send("PUT", task.path() + "/artifacts/" + path, HttpRequest.BodyPublishers.ofString("x"),
                task.lease());
    }

    private static ApiClient.Answer saveCache(AgentClient.Claimed task, String key, byte[] archive) {
        return agent.bytes("PUT", task.path() + "/cache/" + encode(key), archive, task.lease());
    }

    private static ApiClient.Answer lookup(AgentClient.Claimed task, String... keys) {
        StringBuilder query = new StringBuilder();
        for (String key : keys) {
            query.append(query.isEmpty() ? "?" : "&").append("key=").append(encode(key));
        }
        return agent.get(task.path() + "/cache" + query, task.lease());
    }

    private static String persist(AgentClient.Claimed task, UUID job) {
        ApiClient.Answer saved = agent.bytes("PUT", task.path() + "/workspace",
                ("layer of " + job).getBytes(StandardCharsets.UTF_8), task.lease());
        assertThat(saved.status()).as(saved.body()).isEqualTo(201);
        return saved.text("id");
    }

    private static List<String> ids(JsonNode layers) {
        List<String> ids = new ArrayList<>();
        layers.forEach(layer -> ids.add(layer.get("id").asText()));
        return ids;
    }

    private static byte[] bytes(int size) {
        byte[] bytes = new byte[size];
        new Random(size).nextBytes(bytes);
        return bytes;
    }

    private static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
