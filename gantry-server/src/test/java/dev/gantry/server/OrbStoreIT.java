package dev.gantry.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.gantry.server.http.Json;
import dev.gantry.server.project.RepositoryPolicy;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The orb store through the API, and pipelines compiled on the server with its orbs: publish rules (a release never
 * changes, a dev version may), resolution of {@code @1}, {@code @volatile} and exact versions, the versions recorded
 * on each pipeline, and a fake upstream registry on loopback answering CircleCI's GraphQL {@code orbVersion} query.
 * The orbs are the compiler's test orbs (gantry-config/src/test/resources/orbs, sources in golden/SOURCES.md).
 */
class OrbStoreIT {
    @RegisterExtension
    static final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension(32);

    static final Path ORBS = Path.of("../gantry-config/src/test/resources/orbs/circleci");
    static final String CONFIG = """
            version: 2.1
            orbs:
              slack: circleci/slack@1
            jobs:
              build:
                docker: [{image: cimg/base:2024.01}]
                steps:
                  - checkout
                  - slack/notify: {message: built}
            workflows:
              main:
                jobs: [build]
            """;

    @TempDir
    static Path home;
    @TempDir
    Path work;

    static TestServer server;
    static ApiClient api;
    static HttpServer upstream;
    static final Map<String, String> UPSTREAM_ORBS = new ConcurrentHashMap<>();
    static final List<String> asked = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void start() throws IOException {
        upstream = registry(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        URI registry = URI.create("http://127.0.0.1:" + upstream.getAddress().getPort() + "/graphql-unstable");
        server = TestServer.start(pg.dataSource(), home, new ServerSettings(0).withOrbRegistry(registry)
                .withRepositories(RepositoryPolicy.ANYTHING));
        api = server.api();
    }

    @AfterAll
    static void stop() {
        server.close();
        upstream.stop(0);
    }

    @BeforeEach
    void empty() {
        pg.truncate("gantry.project", "gantry.orb_version", "gantry_queue.message");
        UPSTREAM_ORBS.clear();
        asked.clear();
    }

    @Test
    void a_release_is_stored_once_and_never_changes() throws IOException {
        String source = Files.readString(ORBS.resolve("slack@1.0.0.yml"));

        ApiClient.Answer first = put("circleci/slack/1.0.0", source);
        ApiClient.Answer again = put("circleci/slack/1.0.0", source);
        ApiClient.Answer changed = put("circleci/slack/1.0.0", source + "\n# changed\n");

        assertThat(first.status()).as(first.body()).isEqualTo(201);
        assertThat(first.text("outcome")).isEqualTo("created");
        assertThat(again.status()).isEqualTo(200);
        assertThat(again.text("outcome")).isEqualTo("unchanged");
        assertThat(changed.status()).isEqualTo(409);
        assertThat(changed.text("message")).contains("a release never changes");
        assertThat(api.get("/api/v2/orbs/circleci/slack/1.0.0").text("source")).isEqualTo(source);
    }

    @Test
    void a_dev_version_may_be_published_over() throws IOException {
        String source = Files.readString(ORBS.resolve("slack@1.0.0.yml"));

        assertThat(put("circleci/slack/dev:alpha", source).status()).isEqualTo(201);
        ApiClient.Answer replaced = put("circleci/slack/dev:alpha", source + "\n# changed\n");

        assertThat(replaced.status()).isEqualTo(200);
        assertThat(replaced.text("outcome")).isEqualTo("replaced");
        assertThat(api.get("/api/v2/orbs/circleci/slack/dev:alpha").text("source")).endsWith("# changed\n");
    }

    @Test
    void a_broken_orb_is_refused_with_where_it_is_broken() {
        ApiClient.Answer notYaml = put("acme/tools/1.0.0", "version: 2.1\ncommands:\n  hello: [\n    steps\n");
        ApiClient.Answer notAnOrb = put("acme/tools/1.0.0", "version: 2.1\ncommands: 7\n");

        assertThat(notYaml.status()).isEqualTo(400);
        assertThat(notYaml.text("message")).contains("acme/tools@1.0.0 does not compile", "acme/tools@1.0.0.yml:5:1");
        assertThat(notAnOrb.status()).isEqualTo(400);
        assertThat(notAnOrb.text("message")).contains("acme/tools@1.0.0.yml:2:11");
        assertThat(api.get("/api/v2/orbs/acme/tools").status()).isEqualTo(404);
    }

    @Test
    void bad_names_and_versions_are_refused() {
        assertThat(put("Acme/tools/1.0.0", "version: 2.1\n").status()).isEqualTo(400);
        assertThat(put("acme/tools/1.0", "version: 2.1\n").text("message")).contains("X.Y.Z or dev:LABEL");
        assertThat(api.get("/api/v2/orbs/acme/tools/latest").status()).isEqualTo(400);
        assertThat(api.anonymous().get("/api/v2/orbs").status()).isEqualTo(401);
    }

    @Test
    void references_resolve_as_in_a_config_and_the_listing_shows_every_orb() throws IOException {
        String source = Files.readString(ORBS.resolve("slack@1.0.0.yml"));
        for (String version : List.of("1.0.0", "1.2.0", "1.10.0", "2.0.0", "dev:next")) {
            assertThat(put("circleci/slack/" + version, source).status()).isEqualTo(201);
        }

        assertThat(api.get("/api/v2/orbs/circleci/slack/1").text("version")).isEqualTo("1.10.0");
        assertThat(api.get("/api/v2/orbs/circleci/slack/1.2").text("version")).isEqualTo("1.2.0");
        assertThat(api.get("/api/v2/orbs/circleci/slack/volatile").text("version")).isEqualTo("2.0.0");
        assertThat(api.get("/api/v2/orbs/circleci/slack/3").status()).isEqualTo(404);
        JsonNode versions = api.get("/api/v2/orbs/circleci/slack").json().get("versions");
        assertThat(versions.findValuesAsText("version")).containsExactly("2.0.0", "1.10.0", "1.2.0", "1.0.0",
                "dev:next");
        JsonNode listing = api.get("/api/v2/orbs").json().get("items");
        assertThat(listing.toString()).contains("\"name\":\"circleci/slack\"", "\"versions\":5",
                "\"latest_version\":\"2.0.0\"");
    }

    @Test
    void a_pipeline_compiles_with_the_store_s_orbs_and_records_the_versions_it_used() throws IOException {
        String source = Files.readString(ORBS.resolve("slack@1.0.0.yml"));
        put("circleci/slack/1.0.0", source);
        TestRepo repo = TestRepo.init(work.resolve("app"));
        repo.write(".circleci/config.yml", CONFIG).commit("config");
        server.createProject("acme", "app", repo.dir().toString());

        String first = planned();
        put("circleci/slack/1.1.0", source);
        String second = planned();

        assertThat(resolutions(first)).containsExactly("circleci/slack@1=1.0.0");
        assertThat(resolutions(second)).containsExactly("circleci/slack@1=1.1.0");
    }

    @Test
    void a_missing_orb_errors_the_pipeline_with_how_to_add_it() throws IOException {
        TestRepo repo = TestRepo.init(work.resolve("app"));
        repo.write(".circleci/config.yml", CONFIG).commit("config");
        server.createProject("acme", "app", repo.dir().toString());

        String id = api.post("/api/v2/project/gantry/acme/app/pipeline", "{\"branch\": \"main\"}").text("id");
        JsonNode pipeline = settled(id);

        assertThat(pipeline.get("state").asText()).isEqualTo("errored");
        assertThat(pipeline.get("errors").toString()).contains("orb 'circleci/slack@1' is not available in the orb "
                + "store or the orb registry http://127.0.0.1:", "gantry orb publish");
    }

    @Test
    void the_upstream_registry_fills_what_the_store_lacks_and_its_copy_is_kept() throws Exception {
        UPSTREAM_ORBS.put("2.2.0", Files.readString(ORBS.resolve("jq@2.2.0.yml")));

        ApiClient.Answer fetched = api.get("/api/v2/orbs/circleci/jq/2.2.0");
        UPSTREAM_ORBS.clear(); // the registry forgets it; the store does not
        ApiClient.Answer kept = api.get("/api/v2/orbs/circleci/jq/2.2.0");

        assertThat(fetched.status()).as(fetched.body()).isEqualTo(200);
        assertThat(fetched.text("origin")).isEqualTo("upstream");
        assertThat(kept.status()).isEqualTo(200);
        assertThat(asked).containsExactly("circleci/jq@2.2.0");
        assertThat(api.get("/api/v2/orbs/circleci/jq/9.9.9").status()).isEqualTo(404);
    }

    @Test
    void when_the_registry_is_down_the_store_serves_what_it_has_and_says_503_for_the_rest() throws Exception {
        UPSTREAM_ORBS.put("2.2.0", Files.readString(ORBS.resolve("jq@2.2.0.yml")));
        assertThat(api.get("/api/v2/orbs/circleci/jq/2.2.0").text("version")).isEqualTo("2.2.0");
        upstream.stop(0);
        try {
            assertThat(api.get("/api/v2/orbs/circleci/jq/2.2.0").text("version")).isEqualTo("2.2.0");
            assertThat(api.get("/api/v2/orbs/circleci/jq/2").text("version")).as("a moving reference falls back")
                    .isEqualTo("2.2.0");
            ApiClient.Answer missing = api.get("/api/v2/orbs/circleci/jq/3.0.0");
            assertThat(missing.status()).isEqualTo(503);
            assertThat(missing.text("message")).contains("cannot ask the orb registry");
        } finally {
            upstream = registry(upstream.getAddress());
        }
    }

    /** A registry on {@code address} that serves {@link #UPSTREAM_ORBS} as versions of circleci/jq. */
    private static HttpServer registry(InetSocketAddress address) throws IOException {
        HttpServer registry = HttpServer.create(address, 0);
        registry.createContext("/graphql-unstable", exchange -> {
            try (exchange) {
                JsonNode request = Json.MAPPER.readTree(exchange.getRequestBody());
                String reference = request.path("variables").path("orbVersionRef").asText();
                asked.add(reference);
                String wanted = reference.substring(reference.indexOf('@') + 1);
                String version = !reference.startsWith("circleci/jq@") ? null : UPSTREAM_ORBS.keySet().stream()
                        .filter(v -> v.equals(wanted) || v.startsWith(wanted + ".")).findFirst().orElse(null);
                String body = version == null ? "{\"data\":{\"orbVersion\":null}}"
                        : Json.write(Map.of("data", Map.of("orbVersion", Map.of("id", "x", "version", version,
                                "orb", Map.of("id", "y", "name", "circleci/jq"), "source",
                                UPSTREAM_ORBS.get(version)))));
                byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
                exchange.sendResponseHeaders(200, bytes.length);
                exchange.getResponseBody().write(bytes);
            }
        });
        registry.start();
        return registry;
    }

    private String planned() {
        String id = api.post("/api/v2/project/gantry/acme/app/pipeline", "{\"branch\": \"main\"}").text("id");
        JsonNode pipeline = settled(id);
        assertThat(pipeline.get("state").asText()).as(pipeline.toString()).isEqualTo("created");
        return id;
    }

    private JsonNode settled(String id) {
        return await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                .until(() -> api.get("/api/v2/pipeline/" + id).json(), p -> !p.get("state").asText().equals("pending"));
    }

    private List<String> resolutions(String pipelineId) {
        return server.jdbi().withHandle(h -> h.createQuery("""
                        SELECT reference || '=' || version FROM gantry.pipeline_orb
                        WHERE pipeline_id = CAST(:id AS uuid) ORDER BY reference""")
                .bind("id", pipelineId).mapTo(String.class).list());
    }

    private static ApiClient.Answer put(String path, String source) {
        return api.send("PUT", "/api/v2/orbs/" + path, HttpRequest.BodyPublishers.ofString(source),
                "Content-Type", "application/yaml");
    }
}
