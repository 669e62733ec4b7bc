package dev.gantry.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gantry.server.agent.AgentSettings;
import dev.gantry.server.auth.TokenKind;
import dev.gantry.server.retention.RetentionSettings;
import dev.gantry.server.retention.RetentionSweeper;
import dev.gantry.server.storage.BlobLayout;
import dev.gantry.server.storage.BlobName;
import dev.gantry.server.storage.S3BlobStore;
import dev.gantry.server.storage.S3ProxyExtension;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.sqlobject.SqlObjectPlugin;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two servers of one database with their blobs in one S3 bucket (a real S3-compatible server on 127.0.0.1) and job
 * output in the database, as behind a load balancer: what an agent saves or sends through one, the other finds and
 * serves (a cache, a workspace layer of several multipart parts, an artifact, the output), nothing lands under either
 * server's GANTRY_HOME, an artifact download streams from the bucket or redirects to a presigned URL, and retention
 * deletes the objects with their rows. A bucket that stops answering is a 503 the agent retries. A live job page on
 * one server shows the output an agent sends through the other.
 */
class SharedStorageIT {
    @RegisterExtension
    static final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension(32);
    @RegisterExtension
    static final S3ProxyExtension s3 = new S3ProxyExtension();

    private static final String PREFIX = "gantry";
    private static final String PROJECT = "/api/v2/project/gantry/acme/app";

    @TempDir
    static Path homes;

    static TestServer first;
    static TestServer second;
    static AgentClient viaFirst;
    static AgentClient viaSecond;
    RunFixtures runs;
    UUID workflow;
    String agentId;

    @BeforeAll
    static void start() throws IOException {
        ServerSettings settings = new ServerSettings(0, AgentSettings.defaults()
                .withPollTimeout(Duration.ofMillis(300))).withBlobStore(s3.settings(PREFIX));
        first = TestServer.start(pg.dataSource(), Files.createDirectories(homes.resolve("first")), settings);
        // A second server of the database gets the first's token and master key files, as docs/server.md says.
        Path secondHome = Files.createDirectories(homes.resolve("second"));
        for (String file : List.of(TokenKind.ADMIN.fileName(), TokenKind.AGENT.fileName(),
                GantryServer.MASTER_KEY_FILE)) {
            Files.copy(homes.resolve("first").resolve(file), secondHome.resolve(file));
        }
        second = TestServer.start(pg.dataSource(), secondHome,
                settings.withBlobStore(s3.settings(PREFIX).withPresignedDownloads(true)));
        viaFirst = new AgentClient(first.api().anonymous(), first.token(TokenKind.AGENT));
        viaSecond = viaFirst.through(second.api().anonymous());
    }

    @AfterAll
    static void stop() {
        if (second != null) {
            second.close();
        }
        first.close();
    }

    @BeforeEach
    void clean() {
        pg.truncate("gantry.project", "gantry.agent", "gantry_queue.message", "gantry.output_piece");
        s3.clear();
        runs = new RunFixtures(first.jdbi());
        workflow = runs.workflow("build");
        agentId = viaFirst.registered("host-1");
    }

    @Test
    void what_an_agent_saves_through_one_server_the_other_serves_from_the_bucket() throws Exception {
        UUID build = runs.job(workflow, "build").insert();
        runs.job(workflow, "test").requires("build").insert();
        AgentClient.Claimed producer = viaFirst.claimed(agentId);
        byte[] cache = bytes(1000, 1);
        byte[] layer = bytes(S3BlobStore.DEFAULT_PART_SIZE + 4321, 2); // two parts of a multipart upload
        String key = "v1-deps-linux";

        assertThat(viaFirst.bytes("PUT", producer.path() + "/cache/" + key, cache, producer.lease()).status())
                .isEqualTo(201);
        ApiClient.Answer persisted = viaFirst.bytes("PUT", producer.path() + "/workspace", layer, producer.lease());
        assertThat(persisted.status()).isEqualTo(201);
        String layerId = persisted.text("id");
        assertThat(viaFirst.bytes("PUT", producer.path() + "/artifacts/reports/index.html",
                "<p>report</p>".getBytes(StandardCharsets.UTF_8), producer.lease()).status()).isEqualTo(201);

        assertThat(s3.keys(PREFIX + "/")).containsExactlyInAnyOrder(
                PREFIX + "/" + BlobLayout.cache(runs.projectId, key),
                PREFIX + "/" + BlobLayout.workspaceLayer(workflow, UUID.fromString(layerId)),
                PREFIX + "/" + BlobLayout.artifact(build, 0, BlobName.of("reports", "index.html")));
        for (String kind : List.of("caches", "workspaces", "artifacts", "output")) {
            assertThat(homes.resolve("first").resolve(kind)).doesNotExist();
            assertThat(homes.resolve("second").resolve(kind)).doesNotExist();
        }

        AgentClient.Claimed consumer = viaSecond.claimed(agentId);
        ApiClient.Answer found = viaSecond.get(consumer.path() + "/cache?key=v1-deps-", consumer.lease());
        assertThat(found.text("key")).isEqualTo(key);
        assertThat(found.json().get("size").asLong()).isEqualTo(1000);
        assertThat(viaSecond.download(consumer.path() + "/cache/" + key, consumer.lease())).isEqualTo(cache);
        JsonNode layers = viaSecond.get(consumer.path() + "/workspace", consumer.lease()).json().get("layers");
        assertThat(layers).hasSize(1);
        assertThat(layers.get(0).get("id").asText()).isEqualTo(layerId);
        assertThat(layers.get(0).get("size").asLong()).isEqualTo(layer.length);
        assertThat(Arrays.equals(viaSecond.download(consumer.path() + "/workspace/" + layerId, consumer.lease()),
                layer)).as("the layer downloads as it was persisted").isTrue();
        assertThat(viaSecond.bytes("PUT", consumer.path() + "/cache/" + key, bytes(5, 3), consumer.lease())
                .status()).as("the key is taken, whichever server is asked").isEqualTo(409);
    }

    @Test
    void an_artifact_download_streams_from_the_bucket_or_redirects_to_a_presigned_url() throws Exception {
        UUID job = runs.job(workflow, "build").insert();
        AgentClient.Claimed task = viaFirst.claimed(agentId);
        viaFirst.bytes("PUT", task.path() + "/artifacts/reports/index.html",
                "<p>report</p>".getBytes(StandardCharsets.UTF_8), task.lease());
        String download = PROJECT + "/" + runs.number(job) + "/artifacts/0/reports/index.html";

        ApiClient.Answer streamed = first.api().get(download);
        assertThat(streamed.status()).isEqualTo(200);
        assertThat(streamed.body()).isEqualTo("<p>report</p>");
        assertThat(streamed.header("Content-Security-Policy")).isEqualTo("default-src 'none'; sandbox");

        ApiClient.Answer redirected = second.api().get(download);
        assertThat(redirected.status()).isEqualTo(302);
        assertThat(redirected.header("Cache-Control")).isEqualTo("no-store");
        URI presigned = URI.create(redirected.header("Location"));
        assertThat(presigned.toString()).startsWith(s3.endpoint() + "/" + S3ProxyExtension.BUCKET + "/" + PREFIX
                + "/artifacts/" + job + "/0/reports/index.html?");
        HttpResponse<String> fromBucket = HttpClient.newHttpClient().send(HttpRequest.newBuilder(presigned).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(fromBucket.statusCode()).isEqualTo(200);
        assertThat(fromBucket.body()).isEqualTo("<p>report</p>");
        assertThat(fromBucket.headers().firstValue("Content-Disposition")).contains(
                "attachment; filename=\"index.html\"; filename*=UTF-8''index.html");
        assertThat(second.api().anonymous().get(download).status()).as("the redirect needs a token").isEqualTo(401);

        s3.clear(); // as if a retention sweep had crashed between the object and its row
        assertThat(second.api().get(download).status()).isEqualTo(404);
        assertThat(first.api().get(download).status()).isEqualTo(404);
    }

    @Test
    void output_sent_through_either_server_is_one_stream_that_both_show_whole() {
        UUID job = runs.job(workflow, "build").insert();
        AgentClient.Claimed task = viaFirst.claimed(agentId);

        assertThat(viaFirst.output(task, task.lease(), 0, "$ make\n").json().get("length").asLong()).isEqualTo(7);
        ApiClient.Answer next = viaSecond.output(task, task.lease(), 7, "compiling\n");
        assertThat(next.status()).as(next.body()).isEqualTo(200);
        assertThat(next.json().get("length").asLong()).isEqualTo(17);
        String tail = Base64.getEncoder().encodeToString("done\n".getBytes(StandardCharsets.UTF_8));
        assertThat(viaSecond.complete(task, task.lease(), "success", "\"output\": {\"offset\": 17, \"data\": \""
                + tail + "\"}").status()).isEqualTo(200);

        for (TestServer server : List.of(first, second)) {
            ApiClient.Answer output = server.api().get(PROJECT + "/job/" + runs.number(job) + "/output");
            assertThat(output.status()).isEqualTo(200);
            assertThat(output.body()).isEqualTo("$ make\ncompiling\ndone\n");
        }
    }

    @Test
    void a_bucket_that_stops_answering_is_a_503_to_retry_and_its_return_ends_it() throws Exception {
        runs.job(workflow, "build").insert();
        AgentClient.Claimed task = viaFirst.claimed(agentId);
        byte[] cache = bytes(100, 8);
        viaFirst.bytes("PUT", task.path() + "/cache/v1", cache, task.lease());

        s3.stop();
        ApiClient.Answer down;
        try {
            down = viaSecond.get(task.path() + "/cache/v1", task.lease());
        } finally {
            s3.start();
        }

        assertThat(down.status()).isEqualTo(503);
        assertThat(down.header("Retry-After")).isEqualTo("5");
        assertThat(down.text("message")).isEqualTo("the blob storage cannot take this request now; retry after 5 "
                + "seconds");
        assertThat(viaSecond.download(task.path() + "/cache/v1", task.lease())).isEqualTo(cache);
    }

    @Test
    void retention_deletes_the_objects_in_the_bucket_then_their_rows() throws Exception {
        runs.job(workflow, "build").insert();
        AgentClient.Claimed task = viaFirst.claimed(agentId);
        viaFirst.bytes("PUT", task.path() + "/cache/v1-old", bytes(100, 4), task.lease());
        viaFirst.bytes("PUT", task.path() + "/workspace", bytes(45, 5), task.lease());
        viaFirst.bytes("PUT", task.path() + "/artifacts/reports/deep/index.html", bytes(10, 6), task.lease());
        assertThat(s3.keys(PREFIX + "/")).hasSize(3);
        first.jdbi().useHandle(h -> {
            h.execute("UPDATE gantry.cache_entry SET created_at = created_at - interval '40 days'");
            h.execute("UPDATE gantry.workspace_layer SET created_at = created_at - interval '40 days'");
            h.execute("UPDATE gantry.artifact SET created_at = created_at - interval '40 days'");
        });

        try (S3BlobStore bucket = S3BlobStore.open(s3.settings(PREFIX))) {
            RetentionSweeper sweeper = new RetentionSweeper(Jdbi.create(pg.dataSource())
                    .installPlugin(new SqlObjectPlugin()), bucket, RetentionSettings.defaults(),
                    InstantSource.system());

            assertThat(sweeper.sweep()).isEqualTo(new RetentionSweeper.Swept(1, 100, 1, 45, 1, 10));
            assertThat(s3.keys(PREFIX + "/")).isEmpty();
            assertThat(first.count("gantry.cache_entry")).isZero();
            assertThat(first.count("gantry.artifact")).isZero();
            assertThat(sweeper.sweep()).isEqualTo(new RetentionSweeper.Swept(0, 0, 0, 0, 0, 0));
        }
        assertThat(viaSecond.bytes("PUT", task.path() + "/cache/v1-old", bytes(7, 7), task.lease()).status())
                .as("the key is free again").isEqualTo(201);
    }

    @Test
    void a_live_job_page_on_one_server_shows_what_an_agent_sends_through_the_other() throws Exception {
        runs.job(workflow, "test").insert();
        AgentClient.Claimed task = viaFirst.claimed(agentId);
        assertThat(viaFirst.step(task, task.lease(), 0, "{\"name\": \"Run\", \"status\": \"running\", "
                + "\"output_offset\": 0}").status()).isEqualTo(200);
        String session = signIn(second);
        HttpResponse<String> page = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create(second.api().baseUrl() + "/jobs/gantry/acme/app/1")).header("Cookie", session).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(page.body()).contains("data-live=\"/jobs/gantry/acme/app/1/events?node=0\"");

        try (EventStream stream = EventStream.open(URI.create(second.api().baseUrl()
                + "/jobs/gantry/acme/app/1/events?node=0&from=0/-1.-1.0"), session, null)) {
            stream.next("change");
            assertThat(viaFirst.output(task, task.lease(), 0, "sent through the first\n").status()).isEqualTo(200);
            assertThat(stream.until(e -> e.data().contains("\"op\":\"output\"")).data())
                    .contains("sent through the first");
            assertThat(viaFirst.complete(task, task.lease(), "success").status()).isEqualTo(200);
            stream.until(e -> e.name().equals("end"));
            assertThat(stream.received()).anySatisfy(e -> assertThat(e.data()).contains("s-success"));
        }
    }

    /** Signs in to {@code server}'s web UI with the admin token; returns the session cookie. */
    private static String signIn(TestServer server) throws Exception {
        HttpResponse<String> signedIn = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create(server.api().baseUrl() + "/sign-in"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("token=" + java.net.URLEncoder.encode(
                        server.token(TokenKind.ADMIN), StandardCharsets.UTF_8))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(signedIn.statusCode()).isEqualTo(303);
        return signedIn.headers().firstValue("Set-Cookie").orElseThrow().split(";", 2)[0];
    }

    private static byte[] bytes(int size, long seed) {
        byte[] bytes = new byte[size];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }
}
