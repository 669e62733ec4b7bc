package dev.gantry.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.IntStream;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reading workflows and their jobs over HTTP, in CircleCI's API v2 shapes: a pipeline's workflows newest first, one
 * workflow, a workflow's jobs with their dependencies, pages of 20, and JSON errors for bad or unknown ids.
 */
class WorkflowsIT {
    @RegisterExtension
    static final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension();

    static final String CONFIG = """
            version: 2.1
            jobs:
              build:
                docker: [{image: alpine}]
                steps: [{run: make}]
              test:
                docker: [{image: alpine}]
                steps: [{run: make test}]
              deploy:
                docker: [{image: alpine}]
                steps: [{run: make deploy}]
            workflows:
              main:
                jobs:
                  - build
                  - test:
                      requires: [build]
                  - hold:
                      type: approval
                      requires: [test]
                  - deploy:
                      requires:
                        - hold
                        - test: [success, failed]
              nightly:
                jobs: [build]
            """;

    @TempDir
    static Path home;
    @TempDir
    Path work;

    static TestServer server;
    static ApiClient api;
    static Jdbi jdbi;

    TestRepo repo;

    @BeforeAll
    static void start() {
        server = TestServer.start(pg.dataSource(), home);
        api = server.api();
        jdbi = Jdbi.create(pg.dataSource());
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @BeforeEach
    void clean() {
        pg.truncate("gantry.project", "gantry_queue.message");
        repo = TestRepo.init(work.resolve("app"));
        server.createProject("acme", "app", repo.dir().toString());
    }

    @Test
    void a_pipelines_workflows_are_listed_with_circleci_fields_newest_first() {
        repo.write(".circleci/config.yml", CONFIG).commit("config");
        JsonNode pipeline = planned();
        String pipelineId = pipeline.get("id").asText();

        ApiClient.Answer listed = api.get("/api/v2/pipeline/" + pipelineId + "/workflow");

        assertThat(listed.status()).as(listed.body()).isEqualTo(200);
        JsonNode items = listed.json().get("items");
        assertThat(items).extracting(w -> w.get("name").asText()).as("created together: by name")
                .containsExactly("main", "nightly");
        JsonNode main = items.get(0);
        assertThat(fieldNames(main)).containsExactlyInAnyOrder("id", "name", "status", "created_at", "stopped_at",
                "pipeline_id", "pipeline_number", "project_slug", "started_by", "tag");
        assertThat(main.get("started_by").asText()).isEqualTo(api.get("/api/v2/me").text("id"));
        assertThat(main.get("tag").isNull()).as("not a setup workflow").isTrue();
        assertThat(main.get("status").asText()).isEqualTo("running");
        assertThat(main.get("stopped_at").isNull()).isTrue();
        assertThat(main.get("pipeline_id").asText()).isEqualTo(pipelineId);
        assertThat(main.get("pipeline_number").asLong()).isEqualTo(1);
        assertThat(main.get("project_slug").asText()).isEqualTo("gantry/acme/app");
        assertThat(main.get("created_at").asText()).endsWith("Z");
        assertThat(listed.json().get("next_page_token").isNull()).isTrue();

        String rerun = insertWorkflow(pipelineId, "main");
        assertThat(api.get("/api/v2/pipeline/" + pipelineId + "/workflow").json().get("items"))
                .extracting(w -> w.get("id").asText()).as("a later workflow (a rerun) comes first")
                .startsWith(rerun).hasSize(3);
    }

    @Test
    void a_workflow_reads_back_by_id() {
        repo.write(".circleci/config.yml", CONFIG).commit("config");
        String pipelineId = planned().get("id").asText();
        JsonNode listed = api.get("/api/v2/pipeline/" + pipelineId + "/workflow").json().get("items").get(1);

        ApiClient.Answer read = api.get("/api/v2/workflow/" + listed.get("id").asText());

        assertThat(read.status()).isEqualTo(200);
        assertThat(read.json()).isEqualTo(listed);
    }

    @Test
    void a_pipeline_with_more_than_20_workflows_is_listed_in_pages() {
        StringBuilder config = new StringBuilder("""
                version: 2.1
                jobs:
                  build:
                    docker: [{image: alpine}]
                    steps: [{run: make}]
                workflows:
                """);
        IntStream.rangeClosed(1, 23).forEach(i -> config.append("  w%02d:\n    jobs: [build]\n".formatted(i)));
        repo.write(".circleci/config.yml", config.toString()).commit("many");
        String pipelineId = planned().get("id").asText();

        JsonNode first = api.get("/api/v2/pipeline/" + pipelineId + "/workflow").json();
        String token = first.get("next_page_token").asText();
        JsonNode second = api.get("/api/v2/pipeline/" + pipelineId + "/workflow?page-token=" + token).json();

        List<String> names = new ArrayList<>();
        first.get("items").forEach(w -> names.add(w.get("name").asText()));
        assertThat(names).hasSize(20);
        second.get("items").forEach(w -> names.add(w.get("name").asText()));
        assertThat(names).containsExactlyElementsOf(IntStream.rangeClosed(1, 23).mapToObj("w%02d"::formatted).toList());
        assertThat(second.get("next_page_token").isNull()).isTrue();
    }

    @Test
    void a_workflows_jobs_are_listed_with_numbers_dependencies_and_approval_request_ids() {
        repo.write(".circleci/config.yml", CONFIG).commit("config");
        String workflowId = workflowNamed(planned().get("id").asText(), "main");

        ApiClient.Answer listed = api.get("/api/v2/workflow/" + workflowId + "/job");

        assertThat(listed.status()).as(listed.body()).isEqualTo(200);
        JsonNode items = listed.json().get("items");
        assertThat(items).extracting(j -> j.get("name").asText()).containsExactly("build", "test", "hold", "deploy");
        JsonNode build = items.get(0);
        JsonNode test = items.get(1);
        JsonNode hold = items.get(2);
        JsonNode deploy = items.get(3);
        assertThat(fieldNames(build)).containsExactlyInAnyOrder("id", "name", "type", "status", "job_number",
                "dependencies", "requires", "started_at", "stopped_at", "project_slug");
        assertThat(build.get("type").asText()).isEqualTo("build");
        // Planned blocked; the orchestrator may already have queued it, as the root.
        assertThat(build.get("status").asText()).isIn("blocked", "queued");
        assertThat(build.get("job_number").asLong()).isEqualTo(1);
        assertThat(build.get("dependencies")).isEmpty();
        assertThat(build.get("started_at").isNull()).isTrue();
        assertThat(build.get("project_slug").asText()).isEqualTo("gantry/acme/app");
        assertThat(test.get("dependencies")).extracting(JsonNode::asText).containsExactly(build.get("id").asText());
        assertThat(hold.get("type").asText()).isEqualTo("approval");
        assertThat(hold.has("job_number")).as("CircleCI gives approvals no number").isFalse();
        assertThat(hold.get("approval_request_id").asText()).isEqualTo(hold.get("id").asText());
        assertThat(deploy.get("job_number").asLong()).isEqualTo(4);
        assertThat(deploy.get("dependencies")).extracting(JsonNode::asText)
                .containsExactlyInAnyOrder(hold.get("id").asText(), test.get("id").asText());
        assertThat(deploy.get("requires").get(test.get("id").asText())).extracting(JsonNode::asText)
                .containsExactly("success", "failed");
        assertThat(listed.json().get("next_page_token").isNull()).isTrue();
    }

    @Test
    void a_job_retried_after_a_lost_agent_is_listed_twice_and_dependencies_name_the_retry() {
        repo.write(".circleci/config.yml", CONFIG).commit("config");
        String workflowId = workflowNamed(planned().get("id").asText(), "main");
        String retry = UUID.randomUUID().toString();
        jdbi.useHandle(h -> {
            h.createUpdate("UPDATE gantry.job SET status = 'infrastructure_fail' WHERE name = 'build' "
                    + "AND workflow_id = CAST(:w AS uuid)").bind("w", workflowId).execute();
            h.createUpdate("""
                    INSERT INTO gantry.job (id, workflow_id, project_id, number, name, attempt, type, status, requires,
                                            resource_class, cpu, memory_mb, executor, parallelism, spec, created_at)
                    SELECT CAST(:id AS uuid), workflow_id, project_id, 100, name, 2, type, 'queued', requires,
                           resource_class, cpu, memory_mb, executor, parallelism, spec, now()
                    FROM gantry.job WHERE name = 'build' AND workflow_id = CAST(:w AS uuid)
                    """).bind("id", retry).bind("w", workflowId).execute();
        });

        JsonNode items = api.get("/api/v2/workflow/" + workflowId + "/job").json().get("items");

        assertThat(items).extracting(j -> j.get("name").asText() + ":" + j.get("status").asText()).containsExactly(
                "build:infrastructure_fail", "test:blocked", "hold:blocked", "deploy:blocked", "build:queued");
        assertThat(items.get(4).get("id").asText()).isEqualTo(retry);
        assertThat(items.get(1).get("dependencies")).extracting(JsonNode::asText).containsExactly(retry);
    }

    @Test
    void a_workflow_with_more_than_20_jobs_is_listed_in_pages() {
        StringBuilder config = new StringBuilder("""
                version: 2.1
                jobs:
                  build:
                    docker: [{image: alpine}]
                    steps: [{run: make}]
                workflows:
                  w:
                    jobs:
                """);
        IntStream.rangeClosed(1, 25).forEach(i -> config.append("      - build: {name: b%02d}\n".formatted(i)));
        repo.write(".circleci/config.yml", config.toString()).commit("many");
        String workflowId = workflowNamed(planned().get("id").asText(), "w");

        JsonNode first = api.get("/api/v2/workflow/" + workflowId + "/job").json();
        JsonNode second = api.get("/api/v2/workflow/" + workflowId + "/job?page-token="
                + first.get("next_page_token").asText()).json();

        assertThat(first.get("items")).hasSize(20);
        assertThat(second.get("items")).extracting(j -> j.get("job_number").asLong())
                .containsExactly(21L, 22L, 23L, 24L, 25L);
        assertThat(second.get("next_page_token").isNull()).isTrue();
    }

    @Test
    void an_errored_pipeline_has_no_workflows() {
        repo.write("README.md", "no config\n").commit("readme");
        JsonNode pipeline = planned();

        ApiClient.Answer listed = api.get("/api/v2/pipeline/" + pipeline.get("id").asText() + "/workflow");

        assertThat(pipeline.get("state").asText()).isEqualTo("errored");
        assertThat(listed.status()).isEqualTo(200);
        assertThat(listed.json().get("items")).isEmpty();
    }

    @Test
    void unknown_ids_are_404_and_malformed_ones_400_in_json() {
        String unknown = UUID.randomUUID().toString();
        for (String path : List.of("/api/v2/pipeline/" + unknown + "/workflow", "/api/v2/workflow/" + unknown,
                "/api/v2/workflow/" + unknown + "/job")) {
            ApiClient.Answer answer = api.get(path);

            assertThat(answer.status()).as(path).isEqualTo(404);
            assertThat(answer.text("message")).as(path).contains(unknown);
        }
        for (String path : List.of("/api/v2/pipeline/42/workflow", "/api/v2/workflow/1-1-1-1-1",
                "/api/v2/workflow/not-a-uuid/job")) {
            ApiClient.Answer answer = api.get(path);

            assertThat(answer.status()).as(path).isEqualTo(400);
            assertThat(answer.text("field")).as(path).isEqualTo("id");
        }
    }

    @Test
    void a_page_token_from_elsewhere_is_400() {
        repo.write(".circleci/config.yml", CONFIG).commit("config");
        String pipelineId = planned().get("id").asText();
        String workflowId = workflowNamed(pipelineId, "main");

        for (String path : List.of("/api/v2/pipeline/" + pipelineId + "/workflow?page-token=garbage",
                "/api/v2/workflow/" + workflowId + "/job?page-token=WyJ4Il0")) {
            ApiClient.Answer answer = api.get(path);

            assertThat(answer.status()).as(path).isEqualTo(400);
            assertThat(answer.text("field")).isEqualTo("page-token");
        }
    }

    private static JsonNode planned() {
        ApiClient.Answer triggered = api.post("/api/v2/project/gantry/acme/app/pipeline", "{\"branch\": \"main\"}");
        assertThat(triggered.status()).as(triggered.body()).isEqualTo(201);
        String id = triggered.text("id");
        return await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                .until(() -> api.get("/api/v2/pipeline/" + id).json(), p -> !p.get("state").asText().equals("pending"));
    }

    private static String workflowNamed(String pipelineId, String name) {
        for (JsonNode workflow : api.get("/api/v2/pipeline/" + pipelineId + "/workflow").json().get("items")) {
            if (workflow.get("name").asText().equals(name)) {
                return workflow.get("id").asText();
            }
        }
        throw new AssertionError("no workflow " + name + " in pipeline " + pipelineId);
    }

    private static String insertWorkflow(String pipelineId, String name) {
        String id = UUID.randomUUID().toString();
        jdbi.useHandle(h -> h.createUpdate("""
                INSERT INTO gantry.workflow (id, pipeline_id, name, status, created_at)
                VALUES (CAST(:id AS uuid), CAST(:p AS uuid), :name, 'running', now() + interval '1 second')
                """).bind("id", id).bind("p", pipelineId).bind("name", name).execute());
        return id;
    }

    private static List<String> fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
