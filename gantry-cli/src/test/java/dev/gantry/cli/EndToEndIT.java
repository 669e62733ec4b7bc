package dev.gantry.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gantry.cli.client.GantryClient;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A pipeline end to end with real processes: the server ({@code gantry server}) on the test database, agents
 * ({@code gantry agent}) running the steps in bash, and a real git repository whose config has fan-out and fan-in,
 * a matrix with parallel nodes, an approval, a cache, a workspace, artifacts, test results and a failing job.
 */
class EndToEndIT {
    @RegisterExtension
    static final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension(4);

    @TempDir
    static Path home;
    @TempDir
    static Path repository;

    static GantryProcesses gantry;
    static GantryClient api;
    static Path trace;
    static String revision;

    @BeforeAll
    static void start() throws IOException {
        trace = Files.createFile(home.resolve("trace.log"));
        revision = TestRepository.create(repository, "/e2e/config.yml", trace);
        gantry = new GantryProcesses(home.resolve("gantry"), pg.jdbcUrl(), Map.of(
                "GANTRY_AGENT_HEARTBEAT_INTERVAL", "500ms", "GANTRY_AGENT_LEASE_TIMEOUT", "5s"));
        gantry.startServer();
        gantry.startAgent("first", 4);
        api = gantry.admin();
        assertThat(api.post("/api/v2/project", Map.of("name", "app", "repo_url", repository.toString())).status())
                .isEqualTo(201);
    }

    @AfterAll
    static void stop() {
        gantry.close();
    }

    @Test
    void a_pipeline_runs_every_kind_of_step_and_reruns_from_failed() {
        String pipeline = trigger();
        // The approval holds deploy; lint has failed, so the workflow is failing meanwhile.
        JsonNode workflow = awaitWorkflow(pipeline, null, "failing");
        Map<String, JsonNode> jobs = awaitJobs(workflow, Map.of("hold", "on_hold"));
        assertThat(status(jobs)).containsEntry("build", "success").containsEntry("lint", "failed")
                .containsEntry("test-unit", "success").containsEntry("test-integration", "success")
                .containsEntry("package", "success").containsEntry("deploy", "blocked");
        GantryClient.Answer approved = api.post("/api/v2/workflow/" + workflow.path("id").asText() + "/approve/"
                + jobs.get("hold").path("approval_request_id").asText(), Map.of());
        assertThat(approved.status()).as(approved.message()).isEqualTo(202);
        workflow = awaitWorkflow(pipeline, workflow.path("id").asText(), "failed");
        jobs = jobs(workflow);
        assertThat(status(jobs)).containsEntry("hold", "success").containsEntry("deploy", "success");

        String build = output(jobs.get("build"), 0);
        assertThat(build).contains("CACHE MISS").contains("Install dependencies");
        assertThat(output(jobs.get("test-unit"), 1)).contains("CACHE HIT in test").contains("built " + revision);
        assertThat(output(jobs.get("lint"), 0)).contains("lint found 1 problem");
        assertThat(output(jobs.get("deploy"), 0)).contains("deploying built " + revision + " on main");

        JsonNode lint = detail(jobs.get("lint"));
        assertThat(lint.at("/steps/0/actions/0/exit_code").asInt()).isEqualTo(3);
        assertThat(lint.at("/steps/0/actions/0/status").asText()).isEqualTo("failed");

        List<String> artifacts = new ArrayList<>();
        JsonNode artifactList = api.get("/api/v2/project/gantry/local/app/" + number(jobs.get("package"))
                + "/artifacts").json();
        artifactList.path("items").forEach(a -> artifacts.add(a.path("path").asText()));
        assertThat(artifacts).containsExactlyInAnyOrder("release/app.tar.gz", "release/notes.txt");
        JsonNode tests = api.get("/api/v2/project/gantry/local/app/" + number(jobs.get("test-integration"))
                + "/tests").json();
        assertThat(tests.path("items")).hasSize(4);
        List<String> results = new ArrayList<>();
        tests.path("items").forEach(t -> results.add(t.path("result").asText()));
        assertThat(results).containsExactlyInAnyOrder("success", "success", "failure", "failure");

        GantryClient.Answer rerun = api.post("/api/v2/workflow/" + workflow.path("id").asText() + "/rerun",
                Map.of("from_failed", true));
        assertThat(rerun.status()).isEqualTo(202);
        JsonNode again = awaitWorkflow(pipeline, rerun.json().path("workflow_id").asText(), "failing", "failed");
        Map<String, JsonNode> rerunJobs = awaitJobs(again, Map.of("lint", "failed"));
        assertThat(status(rerunJobs)).containsEntry("build", "success").containsEntry("lint", "failed")
                .containsEntry("package", "success");
        assertThat(number(rerunJobs.get("lint"))).isGreaterThan(number(jobs.get("lint")));
        assertThat(traceLines("start build/")).as("a carried-over job does not run again").hasSize(1);
    }

    private static String trigger() {
        GantryClient.Answer triggered = api.post("/api/v2/project/gantry/local/app/pipeline", Map.of("branch", "main"));
        assertThat(triggered.status()).as(triggered.json().toString()).isEqualTo(201);
        return triggered.json().path("id").asText();
    }

    /** Waits until the pipeline's workflow (the one with {@code id}, or the first) has one of {@code statuses}. */
    private static JsonNode awaitWorkflow(String pipeline, String id, String... statuses) {
        JsonNode[] found = new JsonNode[1];
        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(250)).until(() -> {
            for (JsonNode workflow : api.get("/api/v2/pipeline/" + pipeline + "/workflow").json().path("items")) {
                if ((id == null || workflow.path("id").asText().equals(id))
                        && List.of(statuses).contains(workflow.path("status").asText())) {
                    found[0] = workflow;
                    return true;
                }
            }
            return false;
        });
        return found[0];
    }

    /** Waits until the workflow's jobs include {@code expected} name → status, and returns them all by name. */
    private static Map<String, JsonNode> awaitJobs(JsonNode workflow, Map<String, String> expected) {
        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(250))
                .until(() -> status(jobs(workflow)).entrySet().containsAll(expected.entrySet()));
        return jobs(workflow);
    }

    private static Map<String, JsonNode> jobs(JsonNode workflow) {
        Map<String, JsonNode> jobs = new HashMap<>();
        api.get("/api/v2/workflow/" + workflow.path("id").asText() + "/job").json().path("items")
                .forEach(job -> jobs.merge(job.path("name").asText(), job,
                        (a, b) -> number(a) > number(b) ? a : b));
        return jobs;
    }

    private static Map<String, String> status(Map<String, JsonNode> jobs) {
        Map<String, String> statuses = new HashMap<>();
        jobs.forEach((name, job) -> statuses.put(name, job.path("status").asText()));
        return statuses;
    }

    private static long number(JsonNode job) {
        return job.path("job_number").asLong();
    }

    private static JsonNode detail(JsonNode job) {
        return api.get("/api/v2/project/gantry/local/app/job/" + number(job)).json();
    }

    private static String output(JsonNode job, int node) {
        return api.getText("/api/v2/project/gantry/local/app/job/" + number(job) + "/output?node=" + node);
    }

    private static List<String> traceLines(String prefix) {
        try {
            return Files.readAllLines(trace).stream().filter(l -> l.startsWith(prefix)).toList();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
