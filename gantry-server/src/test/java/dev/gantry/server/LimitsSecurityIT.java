package dev.gantry.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gantry.server.agent.AgentSettings;
import dev.gantry.server.auth.TokenKind;
import dev.gantry.server.http.Json;
import dev.gantry.server.project.RepositoryPolicy;
import dev.gantry.server.storage.BlobLayout;
import dev.gantry.server.storage.BlobName;
import dev.gantry.server.storage.FileBlobStore;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server's limits, over real HTTP on the real database: the jobs a pipeline may have, what pipeline parameters
 * may be, how long a request waits for a row lock, one {@code Idempotency-Key}, artifacts that download rather than
 * render in the server's origin, and absolute URLs on the configured external URL whatever the request's
 * {@code Host} says.
 */
class LimitsSecurityIT {
    @RegisterExtension
    static final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension(32);

    /** With a path, as behind a proxy that serves Gantry under a prefix. */
    static final URI EXTERNAL = URI.create("https://ci.example.test/gantry");
    static final String PROJECT = "/api/v2/project/gantry/acme/app";

    @TempDir
    static Path home;
    @TempDir
    Path work;

    static TestServer server;
    static ApiClient api;

    @BeforeAll
    static void start() {
        server = TestServer.start(pg.dataSource(), home, new ServerSettings(0, AgentSettings.defaults()
                .withPollTimeout(Duration.ofMillis(300))).withRepositories(RepositoryPolicy.ANYTHING)
                .withExternalUrl(EXTERNAL));
        api = server.api();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @BeforeEach
    void clean() {
        pg.truncate("gantry.project", "gantry_queue.message");
    }

    // --- 1. the jobs of a pipeline ---

    @Test
    void a_config_over_the_pipeline_job_cap_errors_its_pipeline_naming_the_count_and_the_cap_and_makes_no_job() {
        // 30 × 20 = 600 jobs a workflow (under the compiler's 2,000 a workflow), 1,200 together: over 1,000.
        String matrix = """
                      - build:
                          matrix:
                            parameters:
                              a: [%s]
                              b: [%s]
                """.formatted(numbers(30), numbers(20));
        TestRepo repo = TestRepo.init(work.resolve("big")).write(".circleci/config.yml", """
                version: 2.1
                jobs:
                  build:
                    docker: [{image: cimg/base:2024.01}]
                    parameters:
                      a: {type: integer}
                      b: {type: integer}
                    steps: [{run: echo << parameters.a >> << parameters.b >>}]
                workflows:
                  first:
                    jobs:
                %s  second:
                    jobs:
                %s""".formatted(matrix, matrix));
        repo.commit("a big matrix twice");
        server.createProject("acme", "app", repo.dir().toString());

        ApiClient.Answer triggered = api.post(PROJECT + "/pipeline", "{\"branch\": \"main\"}");
        assertThat(triggered.status()).as(triggered.body()).isEqualTo(201);
        JsonNode pipeline = settled(triggered.text("id"));

        assertThat(pipeline.get("state").asText()).isEqualTo("errored");
        assertThat(pipeline.get("errors")).singleElement().satisfies(error -> {
            assertThat(error.get("type").asText()).isEqualTo("plan");
            assertThat(error.get("message").asText()).contains("1200 jobs", "1000", "GANTRY_MAX_PIPELINE_JOBS");
        });
        assertThat(server.count("gantry.job")).isZero();
        assertThat(server.count("gantry.workflow")).isZero();
    }

    // --- 2. pipeline parameters ---

    @Test
    void parameters_are_at_most_100_scalars_with_names_of_at_most_100_characters_and_strings_of_at_most_64_kib() {
        server.createProject("acme", "app");
        String trigger = PROJECT + "/pipeline";
        String hundred = IntStream.rangeClosed(1, 100).mapToObj(i -> "\"p" + i + "\": " + i)
                .collect(Collectors.joining(", "));

        assertThat(api.post(trigger, "{\"branch\": \"main\", \"parameters\": {" + hundred + "}}").status())
                .isEqualTo(201);
        ApiClient.Answer tooMany = api.post(trigger, "{\"branch\": \"main\", \"parameters\": {" + hundred
                + ", \"p101\": 101}}");
        assertThat(tooMany.status()).isEqualTo(400);
        assertThat(tooMany.text("field")).isEqualTo("parameters");
        assertThat(tooMany.text("message")).contains("101 parameters", "at most 100");

        assertThat(api.post(trigger, parameter("a".repeat(100), "1")).status()).isEqualTo(201);
        ApiClient.Answer longName = api.post(trigger, parameter("a".repeat(101), "1"));
        assertThat(longName.status()).isEqualTo(400);
        assertThat(longName.text("field")).startsWith("parameters.aaaa");

        assertThat(api.post(trigger, parameter("text", "\"" + "x".repeat(64 * 1024) + "\"")).status())
                .isEqualTo(201);
        ApiClient.Answer longText = api.post(trigger, parameter("text", "\"" + "x".repeat(64 * 1024 + 1) + "\""));
        assertThat(longText.status()).isEqualTo(400);
        assertThat(longText.text("field")).isEqualTo("parameters.text");
        assertThat(longText.text("message")).contains("65537 bytes", "65536");
        // bytes of UTF-8, not characters: 'é' is two
        ApiClient.Answer wide = api.post(trigger, parameter("text", "\"" + "é".repeat(32 * 1024 + 1) + "\""));
        assertThat(wide.status()).isEqualTo(400);
        assertThat(wide.text("message")).contains("65538 bytes");

        ApiClient.Answer nested = api.post(trigger, parameter("deploy", "{\"to\": \"prod\"}"));
        assertThat(nested.status()).isEqualTo(400);
        assertThat(nested.text("field")).isEqualTo("parameters.deploy");
        assertThat(nested.text("message")).contains("not nested");

        assertThat(server.count("gantry.pipeline")).isEqualTo(3);
    }

    @Test
    void a_number_a_64_bit_float_cannot_hold_is_refused_naming_the_parameter_in_triggers_schedules_and_continuations() {
        server.createProject("acme", "app");

        for (String huge : List.of("1e400", "-1e400")) {
            ApiClient.Answer refused = api.post(PROJECT + "/pipeline", parameter("huge", huge));
            assertThat(refused.status()).as(huge).isEqualTo(400);
            assertThat(refused.text("field")).isEqualTo("parameters.huge");
            assertThat(refused.text("message")).contains("\"huge\"", "finite");
        }
        // JSON has no NaN or Infinity; the parser refuses them as it does any other non-JSON
        for (String literal : List.of("NaN", "Infinity")) {
            ApiClient.Answer refused = api.post(PROJECT + "/pipeline", parameter("x", literal));
            assertThat(refused.status()).as(literal).isEqualTo(400);
            assertThat(refused.text("message")).contains("not valid JSON");
        }
        assertThat(api.post(PROJECT + "/pipeline", parameter("big", "1e300")).status()).isEqualTo(201);

        ApiClient.Answer schedule = api.post(PROJECT + "/schedule", """
                {"name": "nightly", "timetable": {"per-hour": 1, "hours-of-day": [3],
                 "days-of-week": ["MON"]}, "parameters": {"branch": "main", "huge": 1e400}}""");
        assertThat(schedule.status()).as(schedule.body()).isEqualTo(400);
        assertThat(schedule.text("field")).endsWith("huge");

        ApiClient.Answer continuation = api.anonymous().post("/api/v2/pipeline/continue", """
                {"continuation-key": "any", "configuration": "version: 2.1", "parameters": {"huge": 1e400}}""");
        assertThat(continuation.status()).as(continuation.body()).isEqualTo(400);
        assertThat(continuation.text("field")).isEqualTo("parameters.huge");
        ApiClient.Answer tooMany = api.anonymous().post("/api/v2/pipeline/continue", "{\"continuation-key\": "
                + "\"any\", \"configuration\": \"version: 2.1\", \"parameters\": {" + IntStream.rangeClosed(1, 101)
                .mapToObj(i -> "\"p" + i + "\": true").collect(Collectors.joining(", ")) + "}}");
        assertThat(tooMany.status()).isEqualTo(400);
        assertThat(tooMany.text("field")).isEqualTo("parameters");

        assertThat(server.count("gantry.pipeline")).isEqualTo(1);
        assertThat(server.count("gantry.schedule")).isZero();
    }

    // --- 3. lock waits ---

    @Test
    void a_trigger_waiting_for_a_held_project_row_answers_503_after_the_lock_timeout_while_other_projects_trigger()
            throws Exception {
        server.createProject("acme", "app", TestRepo.init(work.resolve("app")).dir().toString());
        server.createProject("acme", "other", TestRepo.init(work.resolve("other")).dir().toString());
        Jdbi jdbi = Jdbi.create(pg.dataSource());
        try (Handle holder = jdbi.open()) {
            holder.begin();
            holder.execute("SELECT 1 FROM gantry.project WHERE organization = 'acme' AND name = 'app' FOR UPDATE");

            long started = System.nanoTime();
            CompletableFuture<ApiClient.Answer> slow = CompletableFuture.supplyAsync(() ->
                    api.post(PROJECT + "/pipeline", "{\"branch\": \"main\"}"));
            Thread.sleep(500);
            long otherStarted = System.nanoTime();
            ApiClient.Answer other = api.post("/api/v2/project/gantry/acme/other/pipeline", "{\"branch\": \"main\"}");
            Duration otherTook = Duration.ofNanos(System.nanoTime() - otherStarted);
            assertThat(other.status()).as(other.body()).isEqualTo(201);
            assertThat(otherTook).isLessThan(Duration.ofSeconds(2));
            assertThat(slow).isNotDone();

            ApiClient.Answer refused = slow.get();
            Duration took = Duration.ofNanos(System.nanoTime() - started);
            holder.rollback();

            assertThat(refused.status()).as(refused.body()).isEqualTo(503);
            assertThat(refused.header("Retry-After")).isEqualTo("5");
            assertThat(refused.text("message")).contains("lock", "5 seconds", "nothing was written");
            assertThat(took).isBetween(Duration.ofMillis(4_500), Duration.ofSeconds(8));
        }
        long appPipelines = server.jdbi().withHandle(h -> h.createQuery("SELECT count(*) FROM gantry.pipeline p "
                + "JOIN gantry.project r ON r.id = p.project_id WHERE r.name = 'app'").mapTo(Long.class).one());
        assertThat(appPipelines).isZero();
        // released: the next trigger takes number 1, the refused one left no gap
        ApiClient.Answer after = api.post(PROJECT + "/pipeline", "{\"branch\": \"main\"}");
        assertThat(after.status()).isEqualTo(201);
        assertThat(after.json().get("number").asLong()).isEqualTo(1);
    }

    @Test
    void a_workflow_command_waiting_for_a_held_workflow_row_answers_503_after_the_lock_timeout() {
        RunFixtures runs = new RunFixtures(server.jdbi());
        UUID workflow = runs.workflow("build");
        try (Handle holder = Jdbi.create(pg.dataSource()).open()) {
            holder.begin();
            holder.execute("SELECT 1 FROM gantry.workflow WHERE id = ? FOR UPDATE", workflow);

            long started = System.nanoTime();
            ApiClient.Answer refused = api.post("/api/v2/workflow/" + workflow + "/cancel", "{}");
            Duration took = Duration.ofNanos(System.nanoTime() - started);
            holder.rollback();

            assertThat(refused.status()).as(refused.body()).isEqualTo(503);
            assertThat(refused.header("Retry-After")).isEqualTo("5");
            assertThat(took).isBetween(Duration.ofMillis(4_500), Duration.ofSeconds(8));
        }
        assertThat(api.post("/api/v2/workflow/" + workflow + "/cancel", "{}").status()).isEqualTo(202);
    }

    // --- 4. one Idempotency-Key ---

    @Test
    void two_idempotency_key_headers_are_400_and_trigger_nothing() throws IOException {
        server.createProject("acme", "app");
        String body = "{\"branch\": \"main\"}";

        Raw twoKeys = raw("POST", PROJECT + "/pipeline", body, "Host", "127.0.0.1", "Content-Type",
                "application/json", "Idempotency-Key", "deploy-1", "Idempotency-Key", "deploy-2");
        Raw sameTwice = raw("POST", PROJECT + "/pipeline", body, "Host", "127.0.0.1", "Content-Type",
                "application/json", "Idempotency-Key", "deploy-1", "Idempotency-Key", "deploy-1");

        for (Raw refused : List.of(twoKeys, sameTwice)) {
            assertThat(refused.status()).as(refused.body()).isEqualTo(400);
            assertThat(refused.json().get("field").asText()).isEqualTo("Idempotency-Key");
            assertThat(refused.json().get("message").asText()).contains("one Idempotency-Key", "not 2");
        }
        assertThat(server.count("gantry.pipeline")).isZero();
        Raw one = raw("POST", PROJECT + "/pipeline", body, "Host", "127.0.0.1", "Content-Type", "application/json",
                "Idempotency-Key", "deploy-1");
        assertThat(one.status()).as(one.body()).isEqualTo(201);
    }

    // --- 5. artifacts download, never render ---

    @Test
    void artifacts_of_any_type_download_as_attachments_in_a_sandbox_without_sniffing() throws IOException {
        RunFixtures runs = new RunFixtures(server.jdbi());
        UUID job = runs.job(runs.workflow("build"), "test").insert();
        Map<String, String> files = new LinkedHashMap<>();
        files.put("report/index.html", "<script>fetch('/api/v2/me')</script>");
        files.put("report/logo.svg", "<svg xmlns=\"http://www.w3.org/2000/svg\" onload=\"alert(1)\"/>");
        files.put("report/data.xml", "<?xml version=\"1.0\"?><a/>");
        files.put("notes.txt", "<html><script>alert(1)</script></html>");
        files.put("r\u00e9sum\u00e9 \"final\".html", "<p>hi</p>");
        for (Map.Entry<String, String> file : files.entrySet()) {
            artifact(job, file.getKey(), file.getValue());
        }

        for (Map.Entry<String, String> file : files.entrySet()) {
            String name = file.getKey().substring(file.getKey().lastIndexOf('/') + 1);
            ApiClient.Answer download = api.get(PROJECT + "/" + runs.number(job) + "/artifacts/0/"
                    + encodePath(file.getKey()));

            assertThat(download.status()).as(file.getKey()).isEqualTo(200);
            assertThat(download.body()).isEqualTo(file.getValue());
            assertThat(download.header("Content-Disposition")).as(file.getKey()).startsWith("attachment;");
            assertThat(download.header("X-Content-Type-Options")).isEqualTo("nosniff");
            assertThat(download.header("Content-Security-Policy")).contains("sandbox", "default-src 'none'");
            if (name.equals("index.html")) {
                assertThat(download.header("Content-Type")).startsWith("text/html");
                assertThat(download.header("Content-Disposition"))
                        .isEqualTo("attachment; filename=\"index.html\"; filename*=UTF-8''index.html");
            }
        }
        ApiClient.Answer odd = api.get(PROJECT + "/" + runs.number(job) + "/artifacts/0/"
                + encodePath("r\u00e9sum\u00e9 \"final\".html"));
        assertThat(odd.header("Content-Disposition")).isEqualTo("attachment; filename=\"r_sum_ _final_.html\"; "
                + "filename*=UTF-8''r%C3%A9sum%C3%A9%20%22final%22.html");
    }

    // --- 6. absolute URLs on the external URL, never the request's Host ---

    @Test
    void web_url_and_artifact_urls_are_on_the_external_url_whatever_host_the_request_names() throws IOException {
        RunFixtures runs = new RunFixtures(server.jdbi());
        UUID job = runs.job(runs.workflow("build"), "test").insert();
        artifact(job, "report/index.html", "<p>report</p>");
        long number = runs.number(job);
        String[] evil = {"Host", "evil.example", "X-Forwarded-Host", "evil.example", "X-Forwarded-Proto", "http",
            "Forwarded", "host=evil.example;proto=http"};

        Raw details = raw("GET", PROJECT + "/job/" + number, null, evil);
        Raw artifacts = raw("GET", PROJECT + "/" + number + "/artifacts", null, evil);

        assertThat(details.status()).as(details.body()).isEqualTo(200);
        assertThat(details.json().get("web_url").asText())
                .isEqualTo(EXTERNAL + "/jobs/gantry/acme/app/" + number);
        assertThat(artifacts.status()).as(artifacts.body()).isEqualTo(200);
        assertThat(artifacts.json().get("items")).singleElement().satisfies(item -> assertThat(item.get("url")
                .asText()).isEqualTo(EXTERNAL + "/api/v2/project/gantry/acme/app/" + number
                + "/artifacts/0/report/index.html"));
        assertThat(details.body() + artifacts.body()).doesNotContain("evil.example");
    }

    // --- helpers ---

    private static String numbers(int count) {
        return IntStream.rangeClosed(1, count).mapToObj(Integer::toString).collect(Collectors.joining(", "));
    }

    private static String parameter(String name, String jsonValue) {
        return "{\"branch\": \"main\", \"parameters\": {\"" + name + "\": " + jsonValue + "}}";
    }

    private static JsonNode settled(String pipelineId) {
        return await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                .until(() -> api.get("/api/v2/pipeline/" + pipelineId).json(),
                        p -> !p.get("state").asText().equals("pending"));
    }

    /** An artifact of {@code job} on node 0, as an agent's upload leaves it: the file and its row. */
    private static void artifact(UUID job, String path, String content) throws IOException {
        byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
        new FileBlobStore(home).put(BlobLayout.artifact(job, 0, BlobName.parse(path).orElseThrow()),
                new ByteArrayInputStream(bytes));
        server.jdbi().useHandle(h -> h.execute("INSERT INTO gantry.artifact (job_id, node_index, path, size, "
                + "created_at) VALUES (?, 0, ?, ?, now())", job, path, (long) bytes.length));
    }

    private static String encodePath(String path) {
        return java.util.Arrays.stream(path.split("/")).map(segment -> java.net.URLEncoder.encode(segment,
                StandardCharsets.UTF_8).replace("+", "%20")).collect(Collectors.joining("/"));
    }

    /** An answer read off the socket. */
    record Raw(int status, Map<String, List<String>> headers, String body) {
        JsonNode json() throws IOException {
            return Json.MAPPER.readTree(body);
        }
    }

    /**
     * A request written by hand, HTTP/1.0 so the answer ends with the connection: for what a JDK client will not
     * send, a {@code Host} of our choosing and a header twice. {@code headers} are name, value, …; the admin token is
     * added.
     */
    private static Raw raw(String method, String path, String body, String... headers) throws IOException {
        byte[] content = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
        StringBuilder request = new StringBuilder(method + " " + path + " HTTP/1.0\r\n");
        for (int i = 0; i < headers.length; i += 2) {
            request.append(headers[i]).append(": ").append(headers[i + 1]).append("\r\n");
        }
        request.append("Circle-Token: ").append(server.token(TokenKind.ADMIN)).append("\r\n");
        request.append("Content-Length: ").append(content.length).append("\r\n\r\n");
        try (Socket socket = new Socket("127.0.0.1", server.server().port())) {
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            out.write(request.toString().getBytes(StandardCharsets.ISO_8859_1));
            out.write(content);
            out.flush();
            InputStream in = socket.getInputStream();
            String answer = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            int end = answer.indexOf("\r\n\r\n");
            String[] lines = answer.substring(0, end).split("\r\n");
            Map<String, List<String>> answerHeaders = new LinkedHashMap<>();
            for (int i = 1; i < lines.length; i++) {
                int colon = lines[i].indexOf(':');
                answerHeaders.computeIfAbsent(lines[i].substring(0, colon).toLowerCase(Locale.ROOT),
                        k -> new ArrayList<>()).add(lines[i].substring(colon + 1).strip());
            }
            assertThat(answerHeaders).doesNotContainKey("transfer-encoding");
            return new Raw(Integer.parseInt(lines[0].split(" ")[1]), answerHeaders, answer.substring(end + 4));
        }
    }
}
