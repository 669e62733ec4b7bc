package dev.gantry.cli;

import static dev.gantry.cli.PipelineProbe.number;
import static dev.gantry.cli.PipelineProbe.statuses;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gantry.cli.client.GantryClient;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * A pipeline end to end with real processes: the server ({@code gantry server}) on the test database, agents
 * ({@code gantry agent}) running the steps in bash, and a real git repository whose config has fan-out and fan-in,
 * a matrix with parallel nodes, an approval, a cache, a workspace, artifacts, test results and a failing job.
 */
class EndToEndIT {
    @RegisterExtension
    static final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension(4);

    /** Kept when a test fails: the processes' logs are in {@code gantry/logs}. */
    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    static Path home;
    @TempDir
    static Path repository;

    static GantryProcesses gantry;
    static GantryClient api;
    static PipelineProbe probe;
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
        probe = new PipelineProbe(() -> api, "gantry/local/app");
        assertThat(api.post("/api/v2/project", Map.of("name", "app", "repo_url", repository.toString())).status())
                .isEqualTo(201);
    }

    @AfterAll
    static void stop() {
        gantry.close();
    }

    @Test
    void a_pipeline_runs_every_kind_of_step_and_reruns_from_failed() {
        String pipeline = probe.trigger();
        // The approval holds deploy; lint has failed, so the workflow is failing meanwhile.
        JsonNode workflow = probe.awaitWorkflow(pipeline, null, "failing");
        Map<String, JsonNode> jobs = probe.awaitJobs(workflow, Map.of("hold", "on_hold"));
        assertThat(statuses(jobs)).containsEntry("build", "success").containsEntry("lint", "failed")
                .containsEntry("test-unit", "success").containsEntry("test-integration", "success")
                .containsEntry("package", "success").containsEntry("deploy", "blocked");
        GantryClient.Answer approved = api.post("/api/v2/workflow/" + workflow.path("id").asText() + "/approve/"
                + jobs.get("hold").path("approval_request_id").asText(), Map.of());
        assertThat(approved.status()).as(approved.message()).isEqualTo(202);
        workflow = probe.awaitWorkflow(pipeline, workflow.path("id").asText(), "failed");
        jobs = probe.jobs(workflow);
        assertThat(statuses(jobs)).containsEntry("hold", "success").containsEntry("deploy", "success");

        String build = probe.output(jobs.get("build"), 0);
        assertThat(build).contains("CACHE MISS").contains("Install dependencies");
        assertThat(probe.output(jobs.get("test-unit"), 1)).contains("CACHE HIT in test").contains("built " + revision);
        assertThat(probe.output(jobs.get("lint"), 0)).contains("lint found 1 problem");
        assertThat(probe.output(jobs.get("deploy"), 0)).contains("deploying built " + revision + " on main");

        JsonNode lint = probe.detail(jobs.get("lint"));
        assertThat(lint.at("/steps/0/actions/0/exit_code").asInt()).isEqualTo(3);
        assertThat(lint.at("/steps/0/actions/0/status").asText()).isEqualTo("failed");

        Map<String, String> artifacts = new HashMap<>();
        api.get("/api/v2/project/gantry/local/app/" + number(jobs.get("package")) + "/artifacts").json()
                .path("items").forEach(a -> artifacts.put(a.path("path").asText(), a.path("url").asText()));
        assertThat(artifacts).containsOnlyKeys("release/app.tar.gz", "release/notes.txt");
        assertThat(api.getText(URI.create(artifacts.get("release/notes.txt")).getPath())).isEqualTo("packaged\n");
        JsonNode tests = api.get("/api/v2/project/gantry/local/app/" + number(jobs.get("test-integration"))
                + "/tests").json();
        assertThat(tests.path("items")).hasSize(4);
        List<String> results = new ArrayList<>();
        tests.path("items").forEach(t -> results.add(t.path("result").asText()));
        assertThat(results).containsExactlyInAnyOrder("success", "success", "failure", "failure");

        GantryClient.Answer rerun = api.post("/api/v2/workflow/" + workflow.path("id").asText() + "/rerun",
                Map.of("from_failed", true));
        assertThat(rerun.status()).isEqualTo(202);
        JsonNode again = probe.awaitWorkflow(pipeline, rerun.json().path("workflow_id").asText(), "failing", "failed");
        Map<String, JsonNode> rerunJobs = probe.awaitJobs(again, Map.of("lint", "failed"));
        assertThat(statuses(rerunJobs)).containsEntry("build", "success").containsEntry("lint", "failed")
                .containsEntry("package", "success");
        assertThat(number(rerunJobs.get("lint"))).isGreaterThan(number(jobs.get("lint")));
        assertThat(traceLines("start build/")).as("a carried-over job does not run again").hasSize(1);
    }

    @Test
    void gantry_run_follows_a_local_repository_and_exits_with_the_pipelines_outcome() throws Exception {
        Path app = Files.createDirectories(home.resolve("run-me"));
        Files.createDirectories(app.resolve(".circleci"));
        Files.writeString(app.resolve(".circleci/config.yml"), """
                version: 2.1
                jobs:
                  greet:
                    docker:
                      - image: cimg/base:2024.01
                    resource_class: small
                    steps:
                      - checkout
                      - run: echo "hello from $CIRCLE_PROJECT_REPONAME" && test ! -f broken
                workflows:
                  main:
                    jobs:
                      - greet
                """);
        Files.writeString(app.resolve("broken"), "remove me to pass\n");
        Git.run(app, "init", "-q", "-b", "main");
        Git.run(app, "add", "-A");
        Git.run(app, "commit", "-q", "-m", "broken");

        Run failed = gantryRun(app);
        assertThat(failed.code()).as(failed.output()).isEqualTo(1);
        assertThat(failed.output()).contains("[greet] hello from run-me").contains("greet: failed")
                .contains("workflow main: failed");

        Git.run(app, "rm", "-q", "broken");
        Git.run(app, "commit", "-q", "-m", "fixed");
        Run passed = gantryRun(app);
        assertThat(passed.code()).as(passed.output()).isZero();
        assertThat(passed.output()).contains("greet: success").contains("workflow main: success");
        assertThat(api.get("/api/v2/project/gantry/local/run-me").json().path("vcs_url").asText())
                .isEqualTo(app.toString());
    }

    @Test
    void a_setup_workflow_continues_its_pipeline_through_the_api_with_its_continuation_key() throws Exception {
        Path app = Files.createDirectories(home.resolve("setup-app/.circleci")).getParent();
        Files.writeString(app.resolve(".circleci/config.yml"), """
                version: 2.1
                setup: true
                jobs:
                  generate:
                    docker: [{image: cimg/base:2024.01}]
                    resource_class: small
                    steps:
                      - checkout
                      - run:
                          name: Continue the pipeline
                          command: |
                            server="${CIRCLE_BUILD_URL%%/api/*}"
                            jq -n --arg key "$CIRCLE_CONTINUATION_KEY" --rawfile config .circleci/continue.yml \\
                              '{"continuation-key": $key, "configuration": $config,
                                "parameters": {"greeting": "hello from setup"}}' > "$HOME/continue.json"
                            status=$(curl -s -o /dev/stderr -w '%{http_code}' -X POST \\
                              -H 'Content-Type: application/json' --data @"$HOME/continue.json" \\
                              "$server/api/v2/pipeline/continue")
                            test "$status" = 200
                workflows:
                  setup:
                    jobs: [generate]
                """);
        Files.writeString(app.resolve(".circleci/continue.yml"), """
                version: 2.1
                parameters:
                  greeting: {type: string, default: nobody}
                jobs:
                  greet:
                    docker: [{image: cimg/base:2024.01}]
                    resource_class: small
                    steps:
                      - run: echo "<< pipeline.parameters.greeting >>"
                workflows:
                  main:
                    jobs: [greet]
                """);
        Git.run(app, "init", "-q", "-b", "main");
        Git.run(app, "add", "-A");
        Git.run(app, "commit", "-q", "-m", "setup");
        assertThat(api.post("/api/v2/project", Map.of("name", "setup-app", "repo_url", app.toString())).status())
                .isEqualTo(201);
        PipelineProbe setup = new PipelineProbe(() -> api, "gantry/local/setup-app");

        String pipeline = setup.trigger();

        // The continued workflow comes first (newest first) once it exists.
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(120)).until(() ->
                api.get("/api/v2/pipeline/" + pipeline + "/workflow").json().path("items").findValuesAsText("name")
                        .contains("main") && api.get("/api/v2/pipeline/" + pipeline + "/workflow").json()
                        .path("items").get(0).path("status").asText().matches("success|failed"));
        JsonNode workflows = api.get("/api/v2/pipeline/" + pipeline + "/workflow").json().path("items");
        assertThat(workflows.findValuesAsText("name")).containsExactlyInAnyOrder("setup", "main");
        assertThat(workflows.findValuesAsText("status")).as(workflows.toString()).containsOnly("success");
        assertThat(api.get("/api/v2/pipeline/" + pipeline).json().path("state").asText()).isEqualTo("created");
        JsonNode greet = setup.jobs(workflows.get(0)).get("greet");
        assertThat(setup.output(greet, 0)).contains("hello from setup");
    }

    private record Run(int code, String output) {
    }

    /** Runs {@code gantry run DIR} as a process against the test's server. */
    private static Run gantryRun(Path dir) throws Exception {
        Process run = new ProcessBuilder(GantryProcesses.command(List.of("run", dir.toString(), "--server",
                gantry.url().toString(), "--token", Files.readString(home.resolve("gantry/admin-token")).strip())))
                .redirectErrorStream(true).start();
        String output = new String(run.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        return new Run(run.waitFor(), output);
    }

    private static List<String> traceLines(String prefix) {
        try {
            return Files.readAllLines(trace).stream().filter(l -> l.startsWith(prefix)).toList();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
