package dev.gantry.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gantry.queue.Message;
import dev.gantry.queue.QueueSettings;
import dev.gantry.queue.Queues;
import dev.gantry.server.http.Json;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Triggering pipelines over HTTP: 201 only with the pipeline and its plan message committed together, numbers per
 * project without gaps under concurrency, and Idempotency-Key repeats that make nothing new, also when they race.
 */
class PipelinesIT {
    @RegisterExtension
    static final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension(32);

    private static final String TRIGGER = "/api/v2/project/gantry/acme/app/pipeline";
    private static final int CONCURRENT = 20;

    @TempDir
    static Path home;

    static TestServer server;
    static ApiClient api;
    static Queues queues;

    @BeforeAll
    static void start() {
        // The test claims the plan messages itself, so no plan builder may take them first.
        server = TestServer.startWithoutPlanBuilder(pg.dataSource(), home);
        api = server.api();
        queues = Queues.start(pg.dataSource(), QueueSettings.defaults(), new SimpleMeterRegistry());
    }

    @AfterAll
    static void stop() {
        queues.close();
        server.close();
    }

    @BeforeEach
    void clean() {
        pg.truncate("gantry.project", "gantry_queue.message");
        server.createProject("acme", "app");
    }

    @Test
    void a_trigger_answers_201_and_its_plan_message_is_in_the_queue() {
        ApiClient.Answer triggered = api.post(TRIGGER, "{\"branch\": \"main\"}");

        assertThat(triggered.status()).as(triggered.body()).isEqualTo(201);
        JsonNode pipeline = triggered.json();
        String id = pipeline.get("id").asText();
        assertThat(UUID.fromString(id)).isNotNull();
        assertThat(pipeline.get("number").asLong()).isEqualTo(1);
        assertThat(pipeline.get("state").asText()).isEqualTo("pending");
        assertThat(pipeline.get("created_at").asText()).endsWith("Z");
        List<Message> planned = queues.claim("pipeline-plan", "test", 10);
        assertThat(planned).singleElement().satisfies(message -> {
            assertThat(message.payload()).isEqualTo(id);
            assertThat(message.group()).isEqualTo("acme");
        });
    }

    @Test
    void a_pipeline_reads_back_with_its_project_ref_revision_and_parameters() {
        String id = api.post(TRIGGER, """
                {"branch": "feature/x", "revision": "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678",
                 "parameters": {"deploy": true, "replicas": 3, "region": "eu"}}
                """).text("id");

        ApiClient.Answer read = api.get("/api/v2/pipeline/" + id);

        assertThat(read.status()).isEqualTo(200);
        JsonNode pipeline = read.json();
        assertThat(pipeline.get("id").asText()).isEqualTo(id);
        assertThat(pipeline.get("number").asLong()).isEqualTo(1);
        assertThat(pipeline.get("state").asText()).isEqualTo("pending");
        assertThat(pipeline.get("project_slug").asText()).isEqualTo("gantry/acme/app");
        assertThat(pipeline.get("created_at").asText()).isEqualTo(pipeline.get("updated_at").asText());
        assertThat(pipeline.get("vcs")).isEqualTo(json("""
                {"provider_name": null, "branch": "feature/x", "revision": "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678",
                 "origin_repository_url": "https://github.com/acme/app.git",
                 "target_repository_url": "https://github.com/acme/app.git"}"""));
        assertThat(pipeline.get("trigger").get("type").asText()).isEqualTo("api");
        assertThat(pipeline.get("trigger").get("actor")).isEqualTo(json("""
                {"login": "admin", "avatar_url": null}"""));
        assertThat(pipeline.get("trigger").get("received_at").asText()).endsWith("Z");
        assertThat(pipeline.get("errors")).isEqualTo(json("[]"));
        assertThat(pipeline.get("trigger_parameters")).isEqualTo(json("""
                {"deploy": true, "region": "eu", "replicas": 3}"""));
    }

    @Test
    void a_tag_pipeline_shows_its_tag_no_branch_and_a_revision_yet_unknown() {
        String id = api.post(TRIGGER, "{\"tag\": \"v1.0.0\"}").text("id");

        JsonNode vcs = api.get("/api/v2/pipeline/" + id).json().get("vcs");

        assertThat(vcs.get("tag").asText()).isEqualTo("v1.0.0");
        assertThat(vcs.has("branch")).isFalse();
        assertThat(vcs.get("revision").isNull()).isTrue();
    }

    @Test
    void numbers_count_from_1_for_each_project() {
        server.createProject("acme", "other");

        List<Long> app = List.of(trigger(TRIGGER), trigger(TRIGGER), trigger(TRIGGER));
        long other = trigger("/api/v2/project/gantry/acme/other/pipeline");

        assertThat(app).containsExactly(1L, 2L, 3L);
        assertThat(other).isEqualTo(1L);
    }

    @Test
    void twenty_concurrent_triggers_get_the_numbers_1_to_20_and_twenty_plan_messages() throws Exception {
        List<ApiClient.Answer> answers = racingForTheCounter(() -> api.post(TRIGGER, "{\"branch\": \"main\"}"));

        assertThat(answers).extracting(ApiClient.Answer::status).containsOnly(201);
        assertThat(answers).extracting(answer -> answer.json().get("number").asLong())
                .containsExactlyInAnyOrderElementsOf(LongStream.rangeClosed(1, CONCURRENT).boxed().toList());
        assertThat(server.count("gantry.pipeline")).isEqualTo(CONCURRENT);
        assertThat(queues.claim("pipeline-plan", "test", 100)).extracting(Message::payload)
                .containsExactlyInAnyOrderElementsOf(answers.stream().map(answer -> answer.text("id")).toList());
    }

    /**
     * All twenty have looked for the key and missed it before any of them can insert (they queue at the project's
     * counter row, which the test holds), so nineteen run into the unique constraint and must retry.
     */
    @Test
    void twenty_concurrent_triggers_with_one_idempotency_key_make_one_pipeline_and_one_message() throws Exception {
        List<ApiClient.Answer> answers = racingForTheCounter(() -> api.post(TRIGGER, "{\"branch\": \"main\"}",
                "Idempotency-Key", "deploy-42"));

        Map<Integer, Long> statuses = answers.stream().collect(Collectors.groupingBy(ApiClient.Answer::status,
                Collectors.counting()));
        assertThat(statuses).isEqualTo(Map.of(201, 1L, 200, (long) CONCURRENT - 1));
        assertThat(answers).extracting(answer -> answer.text("id")).containsOnly(answers.get(0).text("id"));
        assertThat(answers).extracting(answer -> answer.json().get("number").asLong()).containsOnly(1L);
        assertThat(server.count("gantry.pipeline")).isOne();
        assertThat(queues.claim("pipeline-plan", "test", 100)).hasSize(1);
        assertThat(trigger(TRIGGER)).as("the next pipeline's number: no gap").isEqualTo(2);
    }

    @Test
    void a_repeated_idempotency_key_returns_the_original_pipeline_with_200() {
        ApiClient.Answer first = api.post(TRIGGER, "{\"branch\": \"main\", \"parameters\": {\"a\": 1}}",
                "Idempotency-Key", "k1");
        ApiClient.Answer repeat = api.post(TRIGGER, "{ \"parameters\": { \"a\": 1 }, \"branch\": \"main\" }",
                "Idempotency-Key", "k1");

        assertThat(first.status()).isEqualTo(201);
        assertThat(repeat.status()).isEqualTo(200);
        assertThat(repeat.json()).isEqualTo(first.json());
        assertThat(server.count("gantry.pipeline")).isOne();
    }

    @Test
    void an_idempotency_key_reused_for_another_request_is_409_and_makes_nothing() {
        api.post(TRIGGER, "{\"branch\": \"main\"}", "Idempotency-Key", "k1");

        ApiClient.Answer reused = api.post(TRIGGER, "{\"branch\": \"develop\"}", "Idempotency-Key", "k1");

        assertThat(reused.status()).isEqualTo(409);
        assertThat(reused.text("message")).contains("Idempotency-Key", "k1");
        assertThat(server.count("gantry.pipeline")).isOne();
        assertThat(server.count("gantry_queue.message")).isOne();
    }

    @Test
    void idempotency_keys_belong_to_their_project() {
        server.createProject("acme", "other");

        ApiClient.Answer app = api.post(TRIGGER, "{\"branch\": \"main\"}", "Idempotency-Key", "k1");
        ApiClient.Answer other = api.post("/api/v2/project/gantry/acme/other/pipeline", "{\"branch\": \"main\"}",
                "Idempotency-Key", "k1");

        assertThat(other.status()).isEqualTo(201);
        assertThat(other.text("id")).isNotEqualTo(app.text("id"));
    }

    @Test
    void a_bad_trigger_is_refused_and_makes_nothing() {
        ApiClient.Answer neither = api.post(TRIGGER, "{\"revision\": \"abcdef0\"}");
        ApiClient.Answer badKey = api.post(TRIGGER, "{\"branch\": \"main\"}", "Idempotency-Key", "k".repeat(256));
        ApiClient.Answer unknownProject = api.post("/api/v2/project/gantry/acme/nope/pipeline", "{\"branch\": \"x\"}");
        ApiClient.Answer notJson = api.post(TRIGGER, "branch=main",
                "Content-Type", "application/x-www-form-urlencoded");

        assertThat(neither.status()).isEqualTo(400);
        assertThat(neither.text("field")).isEqualTo("branch");
        assertThat(neither.text("message")).contains("\"branch\"", "\"tag\"");
        assertThat(badKey.status()).isEqualTo(400);
        assertThat(badKey.text("field")).isEqualTo("Idempotency-Key");
        assertThat(unknownProject.status()).isEqualTo(404);
        assertThat(unknownProject.text("message")).isEqualTo("no project gantry/acme/nope");
        assertThat(notJson.status()).isEqualTo(415);
        assertThat(server.count("gantry.pipeline")).isZero();
        assertThat(server.count("gantry_queue.message")).isZero();
    }

    @Test
    void an_unknown_or_malformed_pipeline_id_is_404_in_json() {
        for (String id : List.of(UUID.randomUUID().toString(), "42", "1-1-1-1-1", "not-a-uuid")) {
            ApiClient.Answer answer = api.get("/api/v2/pipeline/" + id);

            assertThat(answer.status()).as(id).isEqualTo(404);
            assertThat(answer.text("message")).isEqualTo("no pipeline " + id);
        }
    }

    private static long trigger(String path) {
        ApiClient.Answer answer = api.post(path, "{\"branch\": \"main\"}");
        assertThat(answer.status()).as(answer.body()).isEqualTo(201);
        return answer.json().get("number").asLong();
    }

    /**
     * Sends {@value #CONCURRENT} copies of {@code request} at once while the test holds the lock on the project's
     * counter row, waits until every one of them is queued behind it in the database, then lets them all go: the
     * race is as tight as it can be, on every run.
     */
    private static List<ApiClient.Answer> racingForTheCounter(Callable<ApiClient.Answer> request) throws Exception {
        Jdbi jdbi = Jdbi.create(pg.dataSource());
        try (ExecutorService clients = Executors.newFixedThreadPool(CONCURRENT); Handle lock = jdbi.open()) {
            lock.begin();
            lock.createQuery("SELECT id FROM gantry.project WHERE name = 'app' FOR UPDATE").mapTo(UUID.class).one();
            List<Future<ApiClient.Answer>> answers = new ArrayList<>();
            for (int i = 0; i < CONCURRENT; i++) {
                answers.add(clients.submit(request));
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> waitingForTheCounter(jdbi), n -> n == CONCURRENT);
            lock.rollback();
            List<ApiClient.Answer> done = new ArrayList<>();
            for (Future<ApiClient.Answer> answer : answers) {
                done.add(answer.get());
            }
            return done;
        }
    }

    @Test
    void a_trigger_without_branch_or_tag_or_body_is_pending_on_the_default_branch_and_keeps_its_idempotency() {
        ApiClient.Answer empty = api.send("POST", TRIGGER, java.net.http.HttpRequest.BodyPublishers.noBody());
        ApiClient.Answer braces = api.post(TRIGGER, "{}", "Idempotency-Key", "default-1");
        ApiClient.Answer again = api.post(TRIGGER, "{ }", "Idempotency-Key", "default-1");
        ApiClient.Answer other = api.post(TRIGGER, "{\"branch\": \"main\"}", "Idempotency-Key", "default-1");

        assertThat(empty.status()).as(empty.body()).isEqualTo(201);
        assertThat(braces.status()).isEqualTo(201);
        assertThat(again.status()).isEqualTo(200);
        assertThat(again.text("id")).isEqualTo(braces.text("id"));
        assertThat(other.status()).as("the default branch is another request than main").isEqualTo(409);
        JsonNode vcs = api.get("/api/v2/pipeline/" + empty.text("id")).json().get("vcs");
        assertThat(vcs.has("branch")).as("resolved only by the plan builder").isFalse();
        assertThat(vcs.has("tag")).isFalse();
    }

    @Test
    void a_projects_pipelines_come_newest_first_twenty_a_page_by_branch_and_by_number() {
        for (int i = 1; i <= 23; i++) {
            assertThat(api.post(TRIGGER, "{\"branch\": \"" + (i % 2 == 0 ? "main" : "dev") + "\"}").status())
                    .isEqualTo(201);
        }
        String list = "/api/v2/project/gh/acme/app/pipeline";
        JsonNode first = api.get(list).json();
        assertThat(numbers(first)).containsExactlyElementsOf(LongStream.rangeClosed(4, 23).map(n -> 27 - n).boxed()
                .toList());
        JsonNode second = api.get(list + "?page-token=" + first.get("next_page_token").asText()).json();
        assertThat(numbers(second)).containsExactly(3L, 2L, 1L);
        assertThat(second.get("next_page_token").isNull()).isTrue();

        JsonNode main = api.get(list + "?branch=main").json();
        assertThat(numbers(main)).containsExactly(22L, 20L, 18L, 16L, 14L, 12L, 10L, 8L, 6L, 4L, 2L);
        assertThat(main.get("items").get(0).at("/vcs/branch").asText()).isEqualTo("main");
        assertThat(numbers(api.get(list + "/mine?branch=dev").json())).hasSize(12).startsWith(23L, 21L);

        JsonNode seven = api.get(list + "/7").json();
        assertThat(seven.get("number").asLong()).isEqualTo(7);
        assertThat(seven).isEqualTo(api.get("/api/v2/pipeline/" + seven.get("id").asText()).json());
        assertThat(api.get(list + "/24").status()).isEqualTo(404);
        assertThat(api.get(list + "/x").status()).isEqualTo(400);
        assertThat(api.get(list + "?page-token=nonsense").status()).isEqualTo(400);
        assertThat(api.get(list + "?branch=a..b").status()).isEqualTo(400);
        assertThat(api.get("/api/v2/project/gh/acme/nope/pipeline").status()).isEqualTo(404);
    }

    @Test
    void mine_leaves_out_pipelines_a_forge_user_triggered() {
        api.post(TRIGGER, "{\"branch\": \"main\"}");
        Jdbi.create(pg.dataSource()).useHandle(h -> h.execute("""
                UPDATE gantry.pipeline SET trigger_type = 'webhook' WHERE number = 1"""));
        api.post(TRIGGER, "{\"branch\": \"main\"}");
        assertThat(numbers(api.get(TRIGGER + "/mine").json())).containsExactly(2L);
        assertThat(numbers(api.get(TRIGGER).json())).containsExactly(2L, 1L);
    }

    private static List<Long> numbers(JsonNode page) {
        List<Long> numbers = new ArrayList<>();
        page.get("items").forEach(item -> numbers.add(item.get("number").asLong()));
        return numbers;
    }

    private static int waitingForTheCounter(Jdbi jdbi) {
        return jdbi.withHandle(h -> h.createQuery("""
                SELECT count(*) FROM pg_stat_activity
                WHERE datname = current_database() AND wait_event_type = 'Lock'
                  AND query LIKE '%last_pipeline_number + 1%'
                """).mapTo(Integer.class).one());
    }

    private static JsonNode json(String text) {
        try {
            return Json.MAPPER.readTree(text);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
