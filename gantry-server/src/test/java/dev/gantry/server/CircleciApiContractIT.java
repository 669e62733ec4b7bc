package dev.gantry.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CircleCI API v2 paths Gantry implements answer as CircleCI's published OpenAPI document says (the excerpt in
 * {@code src/test/resources/circleci-openapi/}, with its source): each path is called on a real server with a planned
 * pipeline, and each answer is checked against the document's response schema. Extra properties are Gantry's and
 * allowed.
 */
class CircleciApiContractIT {
    @RegisterExtension
    static final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension();

    static final OpenApiSchemas CIRCLECI = OpenApiSchemas.load("circleci-openapi/openapi.json");

    /**
     * Where null is accepted although the document does not say nullable: times that have not happened yet (CircleCI
     * itself answers null there), and {@code vcs.provider_name} of an API-triggered pipeline, which Gantry leaves null
     * (no forge told it; docs/server.md).
     */
    static final Set<String> KNOWN_NULLS = Set.of("$.started_at", "$.queued_at", "$.vcs.provider_name");

    static final String CONFIG = """
            version: 2.1
            jobs:
              build:
                docker: [{image: cimg/base:2024.01}]
                steps: [checkout, {run: make}]
              deploy:
                docker: [{image: cimg/base:2024.01}]
                steps: [{run: make deploy}]
            workflows:
              main:
                jobs:
                  - build
                  - hold:
                      type: approval
                  - deploy:
                      requires: [hold]
            """;
    static final String SETUP_CONFIG = """
            version: 2.1
            setup: true
            jobs:
              generate:
                docker: [{image: cimg/base:2024.01}]
                steps: [{run: echo continue}]
            workflows:
              setup:
                jobs: [generate]
            """;
    static final String PROJECT = "/api/v2/project/gh/acme/app";

    @TempDir
    static Path home;
    @TempDir
    Path work;

    static TestServer server;
    static ApiClient api;

    @BeforeAll
    static void start() {
        server = TestServer.start(pg.dataSource(), home);
        api = server.api();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @BeforeEach
    void clean() {
        pg.truncate("gantry.project", "gantry.agent", "gantry_queue.message");
    }

    @Test
    void pipelines_workflows_jobs_and_me_answer_as_circlecis_document_says() {
        TestRepo repo = TestRepo.init(work.resolve("app"));
        repo.write(".circleci/config.yml", CONFIG).commit("config");
        server.createProject("acme", "app", repo.dir().toString());

        // An empty body builds the default branch.
        ApiClient.Answer triggered = api.send("POST", PROJECT + "/pipeline", HttpRequest.BodyPublishers.noBody());
        assertConforms("POST", "/project/{project-slug}/pipeline", 201, triggered);
        String pipelineId = triggered.text("id");
        JsonNode pipeline = settled(pipelineId);
        assertThat(pipeline.get("state").asText()).as(pipeline.toString()).isEqualTo("created");
        assertThat(pipeline.at("/vcs/branch").asText()).isEqualTo("main");

        JsonNode me = assertConforms("GET", "/me", 200, api.get("/api/v2/me"));
        String myId = me.get("id").asText();
        assertConforms("GET", "/pipeline/{pipeline-id}", 200, api.get("/api/v2/pipeline/" + pipelineId));
        assertConforms("GET", "/project/{project-slug}/pipeline", 200, api.get(PROJECT + "/pipeline"));
        assertConforms("GET", "/project/{project-slug}/pipeline", 200, api.get(PROJECT + "/pipeline?branch=main"));
        JsonNode mine = assertConforms("GET", "/project/{project-slug}/pipeline/mine", 200,
                api.get(PROJECT + "/pipeline/mine"));
        assertThat(mine.at("/items/0/id").asText()).isEqualTo(pipelineId);
        assertConforms("GET", "/project/{project-slug}/pipeline/{pipeline-number}", 200,
                api.get(PROJECT + "/pipeline/1"));
        JsonNode config = assertConforms("GET", "/pipeline/{pipeline-id}/config", 200,
                api.get("/api/v2/pipeline/" + pipelineId + "/config"));
        assertThat(config.get("source").asText()).isEqualTo(CONFIG);
        assertThat(config.get("compiled").asText()).contains("make deploy");
        assertThat(config.get("setup-config").asText()).isEmpty();
        assertThat(config.get("orbs").isArray()).isTrue();

        JsonNode workflows = assertConforms("GET", "/pipeline/{pipeline-id}/workflow", 200,
                api.get("/api/v2/pipeline/" + pipelineId + "/workflow"));
        String workflowId = workflows.at("/items/0/id").asText();
        assertThat(workflows.at("/items/0/started_by").asText()).isEqualTo(myId);
        assertThat(workflows.at("/items/0/tag").isNull()).isTrue();
        assertConforms("GET", "/workflow/{id}", 200, api.get("/api/v2/workflow/" + workflowId));

        JsonNode hold = await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                .until(() -> job(workflowId, "hold"), j -> j.get("status").asText().equals("on_hold"));
        assertConforms("GET", "/workflow/{id}/job", 200, api.get("/api/v2/workflow/" + workflowId + "/job"));
        await().atMost(Duration.ofSeconds(30)).until(() -> job(workflowId, "build").get("status").asText()
                .equals("queued"));
        JsonNode build = assertConforms("GET", "/project/{project-slug}/job/{job-number}", 200,
                api.get(PROJECT + "/job/" + job(workflowId, "build").get("job_number").asLong()));
        assertThat(build.get("web_url").asText()).startsWith(api.baseUrl() + "/jobs/gantry/acme/app/");
        assertThat(build.get("messages")).isNotEmpty();

        // Who approved, canceled: the caller, with /me's id.
        assertThat(api.post("/api/v2/workflow/" + workflowId + "/approve/" + hold.get("id").asText(), "{}").status())
                .isEqualTo(202);
        assertThat(api.post(PROJECT + "/job/" + build.get("number").asLong() + "/cancel", "{}").status())
                .isEqualTo(202);
        assertThat(job(workflowId, "hold").get("approved_by").asText()).isEqualTo(myId);
        assertThat(job(workflowId, "build").get("canceled_by").asText()).isEqualTo(myId);
        assertThat(api.post("/api/v2/workflow/" + workflowId + "/cancel", "{}").status()).isEqualTo(202);
        JsonNode canceled = assertConforms("GET", "/workflow/{id}", 200, api.get("/api/v2/workflow/" + workflowId));
        assertThat(canceled.get("status").asText()).isEqualTo("canceled");
        assertThat(canceled.get("canceled_by").asText()).isEqualTo(myId);
        JsonNode jobs = assertConforms("GET", "/workflow/{id}/job", 200,
                api.get("/api/v2/workflow/" + workflowId + "/job"));
        assertThat(jobs.get("items")).allSatisfy(j -> assertThat(j.get("status").asText()).isIn("success",
                "canceled"));
        assertThat(job(workflowId, "deploy").get("canceled_by").asText()).isEqualTo(myId);
    }

    @Test
    void a_setup_workflow_is_tagged_setup_and_its_config_is_the_setup_config() {
        TestRepo repo = TestRepo.init(work.resolve("app"));
        repo.write(".circleci/config.yml", SETUP_CONFIG).commit("setup");
        server.createProject("acme", "app", repo.dir().toString());
        String pipelineId = api.post(PROJECT + "/pipeline", "{\"branch\": \"main\"}").text("id");
        assertThat(settled(pipelineId).get("state").asText()).isEqualTo("setup");

        JsonNode workflows = assertConforms("GET", "/pipeline/{pipeline-id}/workflow", 200,
                api.get("/api/v2/pipeline/" + pipelineId + "/workflow"));
        assertThat(workflows.at("/items/0/tag").asText()).isEqualTo("setup");
        JsonNode config = assertConforms("GET", "/pipeline/{pipeline-id}/config", 200,
                api.get("/api/v2/pipeline/" + pipelineId + "/config"));
        assertThat(config.get("setup-config").asText()).isEqualTo(SETUP_CONFIG);
        assertThat(config.get("compiled-setup-config").asText()).contains("echo continue");
        assertThat(config.get("source").asText()).as("nothing continued it yet").isEmpty();
    }

    @Test
    void a_pipeline_without_a_config_answers_empty_strings_and_an_unknown_one_404() {
        TestRepo repo = TestRepo.init(work.resolve("app"));
        repo.write("README.md", "no config here").commit("readme");
        server.createProject("acme", "app", repo.dir().toString());
        String pipelineId = api.post(PROJECT + "/pipeline", "{}").text("id");
        JsonNode errored = settled(pipelineId);
        assertThat(errored.get("state").asText()).isEqualTo("errored");
        assertConforms("GET", "/pipeline/{pipeline-id}", 200, api.get("/api/v2/pipeline/" + pipelineId));

        JsonNode config = assertConforms("GET", "/pipeline/{pipeline-id}/config", 200,
                api.get("/api/v2/pipeline/" + pipelineId + "/config"));
        assertThat(config.get("source").asText()).isEmpty();
        assertThat(config.get("compiled").asText()).isEmpty();
        assertThat(api.get("/api/v2/pipeline/" + UUID.randomUUID() + "/config").status()).isEqualTo(404);
    }

    private static JsonNode settled(String pipelineId) {
        return await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                .until(() -> api.get("/api/v2/pipeline/" + pipelineId).json(),
                        p -> !p.get("state").asText().equals("pending"));
    }

    private static JsonNode job(String workflowId, String name) {
        for (JsonNode job : api.get("/api/v2/workflow/" + workflowId + "/job").json().get("items")) {
            if (job.get("name").asText().equals(name)) {
                return job;
            }
        }
        throw new AssertionError("workflow " + workflowId + " has no job " + name);
    }

    private static JsonNode assertConforms(String method, String path, int status, ApiClient.Answer answer) {
        assertThat(answer.status()).as(method + " " + path + ": " + answer.body()).isEqualTo(status);
        JsonNode body = answer.json();
        assertThat(CIRCLECI.problems(CIRCLECI.response(method, path, status), body, KNOWN_NULLS))
                .as(method + " " + path + " answered " + body).isEmpty();
        return body;
    }
}
