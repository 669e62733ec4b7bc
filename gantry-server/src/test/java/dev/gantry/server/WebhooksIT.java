package dev.gantry.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gantry.server.http.Json;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Webhooks from GitHub, GitLab and Gitea, replayed from recorded payloads (src/test/resources/webhooks) against a real
 * server whose project builds a real git repository: signatures checked, pushes, tags and pull requests planned at
 * the right ref and commit with their trigger metadata, redeliveries deduplicated, other events ignored.
 */
class WebhooksIT {
    @RegisterExtension
    static final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension(16);

    private static final String SECRET = "0123456789abcdef-webhook-secret";
    private static final String CONFIG = """
            version: 2.1
            jobs:
              build:
                docker: [{image: cimg/base:2024.01}]
                environment:
                  TRIGGER: << pipeline.trigger_source >>
                  BASE: "<< pipeline.git.base_revision >>"
                steps: [{run: make}]
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

    TestRepo repo;
    String master;
    String changes;
    String develop;
    String tagged;

    @BeforeAll
    static void start() {
        server = TestServer.start(pg.dataSource(), home);
        api = server.api();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    /** A repository with the branches and the tag the recorded payloads name, and a project on it with a secret. */
    @BeforeEach
    void clean() {
        pg.truncate("gantry.project", "gantry_queue.message");
        repo = TestRepo.init(work.resolve("app"));
        repo.write(".circleci/config.yml", CONFIG).commit("config");
        repo.checkoutNewBranch("master");
        master = repo.commit("Initial commit");
        repo.tag("v1.0.0");
        tagged = master;
        repo.checkoutNewBranch("changes");
        changes = repo.commit("Update the README");
        repo.checkout("master");
        repo.checkoutNewBranch("develop");
        develop = repo.commit("Webhooks Yay!");
        repo.checkout("master");
        repo.checkoutNewBranch("ms-viewport");
        repo.commit("fixed readme");
        server.createProject("acme", "app", repo.dir().toString());
        setSecret("acme", "app", SECRET);
    }

    @Test
    void a_github_push_makes_a_pipeline_planned_on_its_branch_and_commit() {
        ApiClient.Answer answer = github("push", "github/push.json", "d-1", SECRET);

        assertThat(answer.status()).as(answer.body()).isEqualTo(201);
        JsonNode triggered = answer.json().get("pipelines");
        assertThat(triggered).hasSize(1);
        assertThat(triggered.get(0).get("project_slug").asText()).isEqualTo("gantry/acme/app");
        JsonNode pipeline = planned(triggered.get(0).get("id").asText());
        assertThat(pipeline.get("state").asText()).as(pipeline.toString()).isEqualTo("created");
        assertThat(pipeline.at("/vcs/branch").asText()).isEqualTo("master");
        assertThat(pipeline.at("/vcs/revision").asText()).isEqualTo(master);
        assertThat(pipeline.at("/vcs/provider_name").asText()).isEqualTo("GitHub");
        assertThat(pipeline.at("/vcs/commit/subject").asText()).isEqualTo("Initial commit");
        assertThat(pipeline.at("/vcs/origin_repository_url").asText()).isEqualTo(repo.dir().toString());
        assertThat(pipeline.at("/vcs/review_id").isMissingNode()).isTrue();
        assertThat(pipeline.at("/trigger/type").asText()).isEqualTo("webhook");
        assertThat(pipeline.at("/trigger/actor/login").asText()).isEqualTo("Codertocat");
        assertThat(pipeline.at("/trigger/actor/avatar_url").asText()).startsWith("https://avatars");
        assertThat(pipeline.at("/trigger/received_at").asText()).endsWith("Z");
        JsonNode environment = buildSpec(pipeline).get("environment");
        assertThat(environment.get("TRIGGER").asText()).isEqualTo("webhook");
        assertThat(environment.get("BASE").asText()).isEmpty();
    }

    @Test
    void a_wrong_or_missing_signature_is_401_and_makes_nothing() {
        ApiClient.Answer wrong = github("push", "github/push.json", "d-1", "another-secret-of-16");
        ApiClient.Answer missing = send("github", "github/push.json", substitutions(),
                "X-GitHub-Event", "push", "X-GitHub-Delivery", "d-2");
        ApiClient.Answer gitlabWrongToken = send("gitlab", "gitlab/push.json", substitutions(),
                "X-Gitlab-Event", "Push Hook", "Idempotency-Key", "d-3", "X-Gitlab-Token", "not-the-secret-at-all");

        for (ApiClient.Answer answer : List.of(wrong, missing, gitlabWrongToken)) {
            assertThat(answer.status()).as(answer.body()).isEqualTo(401);
            assertThat(answer.text("message")).contains("signature");
        }
        assertThat(server.count("gantry.pipeline")).isZero();
        assertThat(server.count("gantry.webhook_delivery")).isZero();
    }

    @Test
    void a_project_without_a_webhook_secret_is_not_triggered() {
        setSecret("acme", "app", null);

        ApiClient.Answer answer = github("push", "github/push.json", "d-1", SECRET);

        assertThat(answer.status()).isEqualTo(401);
        assertThat(answer.text("message")).contains("no project of this repository has a webhook secret");
        assertThat(server.count("gantry.pipeline")).isZero();
    }

    @Test
    void a_github_pull_request_builds_its_head_with_base_revision_and_number() {
        ApiClient.Answer answer = github("pull_request", "github/pull_request-opened.json", "d-pr", SECRET);

        assertThat(answer.status()).as(answer.body()).isEqualTo(201);
        JsonNode pipeline = planned(answer.json().at("/pipelines/0/id").asText());
        assertThat(pipeline.get("state").asText()).as(pipeline.toString()).isEqualTo("created");
        assertThat(pipeline.at("/vcs/branch").asText()).isEqualTo("changes");
        assertThat(pipeline.at("/vcs/revision").asText()).isEqualTo(changes);
        assertThat(pipeline.at("/vcs/review_id").asText()).isEqualTo("2");
        assertThat(pipeline.at("/vcs/review_url").asText()).isEqualTo("https://github.com/Codertocat/Hello-World/pull/2");
        assertThat(pipeline.at("/vcs/target_repository_url").asText()).isEqualTo(repo.dir().toString());
        JsonNode environment = buildSpec(pipeline).get("environment");
        assertThat(environment.get("BASE").asText()).isEqualTo(master);
        assertThat(environment.get("TRIGGER").asText()).isEqualTo("webhook");
        String stored = server.jdbi().withHandle(h -> h.createQuery(
                "SELECT base_revision || ' ' || review_id FROM gantry.pipeline").mapTo(String.class).one());
        assertThat(stored).isEqualTo(master + " 2");
    }

    @Test
    void a_redelivery_returns_the_same_pipeline_and_makes_no_second_one() {
        ApiClient.Answer first = github("push", "github/push.json", "d-1", SECRET);
        ApiClient.Answer again = github("push", "github/push.json", "d-1", SECRET);
        ApiClient.Answer another = github("push", "github/push.json", "d-2", SECRET);

        assertThat(first.status()).isEqualTo(201);
        assertThat(again.status()).isEqualTo(200);
        assertThat(again.json().at("/pipelines/0/id")).isEqualTo(first.json().at("/pipelines/0/id"));
        assertThat(another.status()).isEqualTo(201);
        assertThat(another.json().at("/pipelines/0/number").asLong()).isEqualTo(2);
        assertThat(server.count("gantry.pipeline")).isEqualTo(2);
    }

    @Test
    void racing_redeliveries_make_one_pipeline() throws Exception {
        List<Callable<ApiClient.Answer>> calls = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            calls.add(() -> github("push", "github/push.json", "d-race", SECRET));
        }

        List<ApiClient.Answer> answers = race(calls);

        assertThat(answers).extracting(ApiClient.Answer::status).containsOnly(200, 201).containsOnlyOnce(201);
        List<String> ids = answers.stream().map(answer -> answer.json().at("/pipelines/0/id").asText()).toList();
        assertThat(ids).containsOnly(ids.getFirst());
        assertThat(server.count("gantry.pipeline")).isEqualTo(1);
        assertThat(server.count("gantry.webhook_delivery")).isEqualTo(1);
    }

    @Test
    void other_events_deletions_and_closed_pull_requests_are_202_and_ignored() {
        ApiClient.Answer create = github("create", "github/create.json", "d-1", SECRET);
        ApiClient.Answer deletion = github("push", "github/push-tag-deleted.json", "d-2", SECRET);
        ApiClient.Answer closed = github("pull_request", "github/pull_request-closed.json", "d-3", SECRET);

        for (ApiClient.Answer answer : List.of(create, deletion, closed)) {
            assertThat(answer.status()).as(answer.body()).isEqualTo(202);
            assertThat(answer.text("message")).startsWith("ignored: ");
        }
        assertThat(server.count("gantry.pipeline")).isZero();
    }

    @Test
    void an_unknown_repository_is_404_and_malformed_json_400() {
        ApiClient.Answer unknown = send("github", "github/push.json", Map.of(), "X-GitHub-Event", "push",
                "X-GitHub-Delivery", "d-1", "X-Hub-Signature-256", "sha256=00");
        ApiClient.Answer malformed = api.anonymous().post("/webhooks/github", "{\"ref\": ", "X-GitHub-Event", "push",
                "X-GitHub-Delivery", "d-2");
        ApiClient.Answer noSuchForge = api.anonymous().post("/webhooks/bitbucket", "{}");

        assertThat(unknown.status()).as(unknown.body()).isEqualTo(404);
        assertThat(unknown.text("message")).contains("https://github.com/Codertocat/Hello-World.git");
        assertThat(malformed.status()).isEqualTo(400);
        assertThat(malformed.text("message")).contains("JSON");
        assertThat(noSuchForge.status()).isEqualTo(404);
        assertThat(server.count("gantry.pipeline")).isZero();
    }

    @Test
    void gitlab_push_tag_push_and_merge_request_build() {
        ApiClient.Answer push = gitlab("Push Hook", "gitlab/push.json", "g-1");
        ApiClient.Answer tag = gitlab("Tag Push Hook", "gitlab/tag_push.json", "g-2");
        ApiClient.Answer mergeRequest = gitlab("Merge Request Hook", "gitlab/merge_request-open.json", "g-3");
        ApiClient.Answer redelivered = send("gitlab", "gitlab/push.json", substitutions(), "X-Gitlab-Event",
                "Push Hook", "X-Gitlab-Event-UUID", "g-1", "X-Gitlab-Token", SECRET);

        JsonNode pushed = planned(push.json().at("/pipelines/0/id").asText());
        assertThat(pushed.at("/vcs/branch").asText()).isEqualTo("master");
        assertThat(pushed.at("/vcs/revision").asText()).isEqualTo(master);
        assertThat(pushed.at("/vcs/provider_name").asText()).isEqualTo("GitLab");
        assertThat(pushed.at("/trigger/actor/login").asText()).isEqualTo("jsmith");
        JsonNode tagPipeline = planned(tag.json().at("/pipelines/0/id").asText());
        assertThat(tagPipeline.get("state").asText()).as(tagPipeline.toString()).isEqualTo("created");
        assertThat(tagPipeline.at("/vcs/tag").asText()).isEqualTo("v1.0.0");
        assertThat(tagPipeline.at("/vcs/branch").isMissingNode()).isTrue();
        assertThat(tagPipeline.at("/vcs/revision").asText()).isEqualTo(tagged);
        JsonNode merge = planned(mergeRequest.json().at("/pipelines/0/id").asText());
        assertThat(merge.at("/vcs/branch").asText()).isEqualTo("ms-viewport");
        assertThat(merge.at("/vcs/review_id").asText()).isEqualTo("1");
        assertThat(merge.at("/vcs/review_url").asText()).isEqualTo("http://example.com/diaspora/merge_requests/1");
        // The older header names the same delivery as the newer Idempotency-Key did.
        assertThat(redelivered.status()).as(redelivered.body()).isEqualTo(200);
        assertThat(server.count("gantry.pipeline")).isEqualTo(3);
    }

    @Test
    void gitea_push_and_pull_request_build() {
        ApiClient.Answer push = gitea("push", "gitea/push.json", "t-1");
        ApiClient.Answer pullRequest = gitea("pull_request", "gitea/pull_request-opened.json", "t-2");

        JsonNode pushed = planned(push.json().at("/pipelines/0/id").asText());
        assertThat(pushed.get("state").asText()).as(pushed.toString()).isEqualTo("created");
        assertThat(pushed.at("/vcs/branch").asText()).isEqualTo("develop");
        assertThat(pushed.at("/vcs/revision").asText()).isEqualTo(develop);
        assertThat(pushed.at("/vcs/provider_name").asText()).isEqualTo("Gitea");
        JsonNode pr = planned(pullRequest.json().at("/pipelines/0/id").asText());
        assertThat(pr.at("/vcs/review_id").asText()).isEqualTo("7");
        assertThat(buildSpec(pr).at("/environment/BASE").asText()).isEqualTo(master);
    }

    @Test
    void projects_sharing_a_repository_are_each_triggered_when_their_secret_verifies() {
        server.createProject("acme", "app-nightly", repo.dir().toString());
        setSecret("acme", "app-nightly", SECRET);
        server.createProject("acme", "app-other", "file://" + repo.dir() + "/");
        setSecret("acme", "app-other", "a-different-secret-entirely");

        ApiClient.Answer answer = github("push", "github/push.json", "d-1", SECRET);

        assertThat(answer.status()).as(answer.body()).isEqualTo(201);
        assertThat(answer.json().get("pipelines").findValuesAsText("project_slug"))
                .containsExactly("gantry/acme/app", "gantry/acme/app-nightly");
        assertThat(github("push", "github/push.json", "d-1", "a-different-secret-entirely").json()
                .get("pipelines").findValuesAsText("project_slug")).containsExactly("gantry/acme/app-other");
        assertThat(server.count("gantry.pipeline")).isEqualTo(3);
    }

    @Test
    void settings_say_whether_a_secret_is_set_and_refuse_a_weak_one() {
        String settings = "/api/v2/project/gantry/acme/app/settings";
        assertThat(api.get(settings).json().at("/webhook/secret_set").asBoolean()).isTrue();

        ApiClient.Answer weak = patch(settings, "{\"webhook\": {\"secret\": \"short\"}}");
        assertThat(weak.status()).isEqualTo(400);
        assertThat(weak.body()).doesNotContain("short\"");
        assertThat(patch(settings, "{\"webhook\": {\"secret\": null}}").json().at("/webhook/secret_set").asBoolean())
                .isFalse();
        assertThat(api.get(settings).body()).doesNotContain(SECRET);
    }

    @Test
    void an_api_trigger_records_the_admin_as_its_actor() {
        ApiClient.Answer triggered = api.post("/api/v2/project/gantry/acme/app/pipeline", "{\"branch\": \"master\"}");

        JsonNode pipeline = planned(triggered.text("id"));
        assertThat(pipeline.at("/trigger/type").asText()).isEqualTo("api");
        assertThat(pipeline.at("/trigger/actor/login").asText()).isEqualTo("admin");
        assertThat(pipeline.at("/vcs/provider_name").isNull()).isTrue();
        assertThat(buildSpec(pipeline).at("/environment/TRIGGER").asText()).isEqualTo("api");
    }

    // --- deliveries

    private ApiClient.Answer github(String event, String resource, String delivery, String secret) {
        byte[] body = body(resource, substitutions());
        return send("github", body, "X-GitHub-Event", event, "X-GitHub-Delivery", delivery,
                "X-Hub-Signature-256", "sha256=" + hmac(secret, body));
    }

    private ApiClient.Answer gitlab(String event, String resource, String delivery) {
        ApiClient.Answer answer = send("gitlab", resource, substitutions(), "X-Gitlab-Event", event,
                "Idempotency-Key", delivery, "X-Gitlab-Token", SECRET);
        assertThat(answer.status()).as(answer.body()).isEqualTo(201);
        return answer;
    }

    private ApiClient.Answer gitea(String event, String resource, String delivery) {
        byte[] body = body(resource, substitutions());
        ApiClient.Answer answer = send("gitea", body, "X-Gitea-Event", event, "X-Gitea-Delivery", delivery,
                "X-Gitea-Signature", hmac(SECRET, body));
        assertThat(answer.status()).as(answer.body()).isEqualTo(201);
        return answer;
    }

    /** The recorded payloads' repository URLs and commits, and what stands for them in the test repository. */
    private Map<String, String> substitutions() {
        Map<String, String> swap = new LinkedHashMap<>();
        String path = repo.dir().toString();
        swap.put("https://github.com/Codertocat/Hello-World.git", path);
        swap.put("http://example.com/mike/diaspora.git", path);
        swap.put("http://example.com/jsmith/example.git", path);
        swap.put("http://example.com/awesome_space/awesome_project.git", path);
        swap.put("http://localhost:3000/gitea/webhooks.git", path);
        swap.put("6113728f27ae82c7b1a177c8d03f9e96e0adf246", master); // GitHub push
        swap.put("ec26c3e57ca3a959ca5aad62de7213c562f8c821", changes); // GitHub pull request head
        swap.put("f95f852bd8fca8fcc58a9a2d6c842781e32a215e", master); // GitHub pull request base
        swap.put("82b3d5ae55f7080f1e6022629cdb57bfae7cccc7", tagged); // GitLab tag
        swap.put("bffeb74224043ba2feb48d137756c8a9331c449a", develop); // Gitea push, pull request head
        swap.put("28e1879d029cb852e4844d9c718537df08844e03", master); // Gitea pull request base
        // GitLab's push and merge request examples share one commit id; on master and on ms-viewport here.
        swap.put("da1560886d4f094c3e6c9ef40349f7d38b5d27d7", "");
        return swap;
    }

    private ApiClient.Answer send(String provider, String resource, Map<String, String> swap, String... headers) {
        return send(provider, body(resource, swap), headers);
    }

    private static ApiClient.Answer send(String provider, byte[] body, String... headers) {
        List<String> all = new ArrayList<>(List.of(headers));
        all.addAll(List.of("Content-Type", "application/json"));
        return api.anonymous().send("POST", "/webhooks/" + provider, HttpRequest.BodyPublishers.ofByteArray(body),
                all.toArray(String[]::new));
    }

    private byte[] body(String resource, Map<String, String> swap) {
        String text;
        try (InputStream in = WebhooksIT.class.getResourceAsStream("/webhooks/" + resource)) {
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        for (Map.Entry<String, String> entry : swap.entrySet()) {
            String value = entry.getValue();
            if (value.isEmpty()) {
                value = resource.contains("merge_request") ? repo.git("rev-parse", "ms-viewport").strip() : master;
            }
            text = text.replace(entry.getKey(), value);
        }
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String hmac(String secret, byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            return HexFormat.of().formatHex(mac.doFinal(body));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    // --- reading back

    private static void setSecret(String organization, String name, String secret) {
        ApiClient.Answer answer = patch("/api/v2/project/gantry/" + organization + "/" + name + "/settings",
                "{\"webhook\": {\"secret\": " + (secret == null ? "null" : "\"" + secret + "\"") + "}}");
        assertThat(answer.status()).as(answer.body()).isEqualTo(200);
    }

    private static ApiClient.Answer patch(String path, String json) {
        return api.send("PATCH", path, HttpRequest.BodyPublishers.ofString(json), "Content-Type", "application/json");
    }

    /** The pipeline once the server's plan builder has settled it. */
    private static JsonNode planned(String id) {
        return await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                .until(() -> api.get("/api/v2/pipeline/" + id).json(), p -> !p.get("state").asText().equals("pending"));
    }

    /** The compiled spec of the pipeline's job {@code build}. */
    private static JsonNode buildSpec(JsonNode pipeline) {
        Map<String, JsonNode> specs = new HashMap<>();
        server.jdbi().useHandle(h -> h.createQuery("""
                        SELECT j.name, j.spec::text AS spec FROM gantry.job j
                        JOIN gantry.workflow w ON w.id = j.workflow_id WHERE w.pipeline_id = CAST(:p AS uuid)
                        """)
                .bind("p", pipeline.get("id").asText())
                .map((rs, ctx) -> specs.put(rs.getString("name"), json(rs.getString("spec"))))
                .list());
        assertThat(specs).as(pipeline.toString()).containsKey("build");
        return specs.get("build");
    }

    private static JsonNode json(String text) {
        try {
            return Json.MAPPER.readTree(text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static <T> List<T> race(List<Callable<T>> calls) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(calls.size());
        try {
            List<T> results = new ArrayList<>();
            for (Future<T> future : pool.invokeAll(calls)) {
                results.add(future.get());
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }
}
