package dev.gantry.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gantry.config.orb.OrbResolver;
import dev.gantry.queue.QueueSettings;
import dev.gantry.queue.Queues;
import dev.gantry.scheduler.ResourceClasses;
import dev.gantry.server.http.Json;
import dev.gantry.server.pipeline.GitRef;
import dev.gantry.server.plan.ConfigFetchException;
import dev.gantry.server.plan.Continuations;
import dev.gantry.server.plan.GitMirrors;
import dev.gantry.server.plan.PlanBuilder;
import dev.gantry.server.project.RepositoryPolicy;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.sqlobject.SqlObjectPlugin;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The plan builder on real git repositories and the real server: a trigger becomes workflows and blocked jobs built
 * from the config at the right commit, or an errored pipeline that says why.
 */
class PlanBuilderIT {
    @RegisterExtension
    static final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension();

    static final String CONFIG = """
            version: 2.1
            jobs:
              build:
                docker:
                  - image: cimg/base:2024.01
                  - image: postgres:16
                resource_class: small
                steps:
                  - checkout
                  - run: make
              test:
                docker: [{image: cimg/base:2024.01}]
                parallelism: 3
                steps: [{run: make test}]
              deploy:
                machine:
                  image: ubuntu-2204:2024.01.1
                resource_class: large
                steps: [{run: ./deploy.sh << pipeline.git.revision >>}]
              lint:
                macos:
                  xcode: "15.2.0"
                resource_class: medium
                steps: [{run: swiftlint}]
            workflows:
              build-and-deploy:
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
              lint:
                jobs: [lint]
            """;

    @TempDir
    static Path home;
    @TempDir
    Path work;

    static TestServer server;
    static ApiClient api;
    static Queues queues;
    static Jdbi jdbi;

    TestRepo repo;
    String projectId;

    @BeforeAll
    static void start() {
        server = TestServer.start(pg.dataSource(), home);
        api = server.api();
        queues = Queues.start(pg.dataSource(), QueueSettings.defaults(), new SimpleMeterRegistry());
        jdbi = Jdbi.create(pg.dataSource()).installPlugin(new SqlObjectPlugin());
    }

    @AfterAll
    static void stop() {
        queues.close();
        server.close();
    }

    @BeforeEach
    void clean() {
        pg.truncate("gantry.project", "gantry_queue.message");
        repo = TestRepo.init(work.resolve("app"));
        projectId = server.createProject("acme", "app", repo.dir().toString()).text("id");
    }

    @Test
    void a_trigger_stores_the_workflows_and_blocked_jobs_of_the_config_at_the_branch_head() {
        String head = repo.write(".circleci/config.yml", CONFIG).commit("config");

        JsonNode pipeline = planned(trigger("{\"branch\": \"main\"}"));

        assertThat(pipeline.get("state").asText()).isEqualTo("created");
        assertThat(pipeline.get("vcs").get("revision").asText()).isEqualTo(head);
        assertThat(pipeline.get("errors")).isEmpty();
        String pipelineId = pipeline.get("id").asText();
        assertThat(rows("SELECT name || ':' || status FROM gantry.workflow WHERE pipeline_id = CAST(:p AS uuid) "
                + "ORDER BY name", pipelineId)).containsExactly("build-and-deploy:running", "lint:running");
        assertThat(rows("""
                SELECT j.number || ' ' || w.name || '/' || j.name || ' ' || j.type || ' '
                       || coalesce(j.resource_class, '-') || ' ' || coalesce(j.cpu::text, '-') || ' '
                       || coalesce(j.memory_mb::text, '-') || ' ' || j.parallelism || ' ' || j.attempt
                FROM gantry.job j JOIN gantry.workflow w ON w.id = j.workflow_id
                WHERE w.pipeline_id = CAST(:p AS uuid) ORDER BY j.number
                """, pipelineId)).containsExactly(
                "1 build-and-deploy/build build small 1 2048 1 1",
                "2 build-and-deploy/test build medium 2 4096 3 1",
                "3 build-and-deploy/hold approval - - - 1 1",
                "4 build-and-deploy/deploy build large 4 8192 1 1",
                "5 lint/lint build medium 2 4096 1 1");
        // Stored blocked, but the jobs that require nothing are queued in the same transaction.
        assertThat(rows("""
                SELECT j.name || ':' || j.status FROM gantry.job j JOIN gantry.workflow w ON w.id = j.workflow_id
                WHERE w.pipeline_id = CAST(:p AS uuid) AND j.requires <> '{}' ORDER BY j.number
                """, pipelineId)).containsExactly("test:blocked", "hold:blocked", "deploy:blocked");
        Map<String, JsonNode> requires = jsonByJob(pipelineId, "requires");
        assertThat(requires.get("build")).isEqualTo(json("{}"));
        assertThat(requires.get("hold")).isEqualTo(json("{\"test\": [\"success\"]}"));
        assertThat(requires.get("deploy")).isEqualTo(json("{\"hold\": [\"success\"], \"test\": [\"success\", \"failed\"]}"));
        Map<String, JsonNode> executors = jsonByJob(pipelineId, "executor");
        assertThat(executors.get("build")).isEqualTo(json("{\"type\": \"docker\", \"image\": \"cimg/base:2024.01\"}"));
        assertThat(executors.get("deploy")).isEqualTo(json("{\"type\": \"machine\", \"image\": \"ubuntu-2204:2024.01.1\"}"));
        assertThat(executors.get("lint")).isEqualTo(json("{\"type\": \"macos\", \"image\": \"xcode 15.2.0\"}"));
        assertThat(executors.get("hold")).isNull();
        Map<String, JsonNode> specs = jsonByJob(pipelineId, "spec");
        assertThat(specs.get("build").get("executor").get("images")).hasSize(2);
        assertThat(specs.get("deploy").get("steps").get(0).get("run").get("command").asText())
                .isEqualTo("./deploy.sh " + head);
        assertThat(specs.get("test").get("parallelism").asInt()).isEqualTo(3);
        assertThat(rows("""
                SELECT j.name || ':' || j.status FROM gantry.job j JOIN gantry.workflow w ON w.id = j.workflow_id
                WHERE w.pipeline_id = CAST(:p AS uuid) AND j.requires = '{}' ORDER BY j.number
                """, pipelineId)).as("advanced as they were stored").allMatch(row -> row.endsWith(":queued"));
        assertThat(advanceMessages()).as("no message needed to advance them").isZero();
    }

    @Test
    void job_numbers_continue_across_pipelines_of_a_project() {
        repo.write(".circleci/config.yml", CONFIG).commit("config");

        planned(trigger("{\"branch\": \"main\"}"));
        String second = planned(trigger("{\"branch\": \"main\"}")).get("id").asText();

        assertThat(rows("SELECT j.number::text FROM gantry.job j JOIN gantry.workflow w ON w.id = j.workflow_id "
                + "WHERE w.pipeline_id = CAST(:p AS uuid) ORDER BY j.number", second))
                .containsExactly("6", "7", "8", "9", "10");
    }

    @Test
    void an_explicit_revision_builds_the_config_of_that_commit_and_stores_its_full_id() {
        String first = repo.write(".circleci/config.yml", config("old")).commit("old");
        repo.write(".circleci/config.yml", config("new")).commit("new");

        JsonNode pipeline = planned(trigger("{\"branch\": \"main\", \"revision\": \"" + first.substring(0, 10)
                + "\"}"));

        assertThat(pipeline.get("state").asText()).isEqualTo("created");
        assertThat(pipeline.get("vcs").get("revision").asText()).isEqualTo(first);
        assertThat(jobNames(pipeline)).containsExactly("old");
    }

    @Test
    void a_revision_the_mirror_already_has_is_planned_without_fetching() throws Exception {
        String head = repo.write(".circleci/config.yml", config("build")).commit("config");
        planned(trigger("{\"branch\": \"main\"}"));
        // The repository goes away: only the mirror can answer now.
        try (var files = Files.walk(repo.dir())) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }

        JsonNode again = planned(trigger("{\"branch\": \"main\", \"revision\": \"" + head + "\"}"));

        assertThat(again.get("state").asText()).as(again.toString()).isEqualTo("created");
        assertThat(jobNames(again)).containsExactly("build");
    }

    @Test
    void a_later_pipeline_sees_commits_pushed_after_the_mirror_was_cloned() {
        repo.write(".circleci/config.yml", config("old")).commit("old");
        assertThat(jobNames(planned(trigger("{\"branch\": \"main\"}")))).containsExactly("old");

        String head = repo.write(".circleci/config.yml", config("new")).commit("new");
        JsonNode later = planned(trigger("{\"branch\": \"main\"}"));

        assertThat(later.get("vcs").get("revision").asText()).isEqualTo(head);
        assertThat(jobNames(later)).containsExactly("new");
    }

    @Test
    void the_mirror_tells_the_repositorys_default_branch_for_auto_cancel() throws Exception {
        repo.write(".circleci/config.yml", config("build")).commit("config");
        TestRepo develop = TestRepo.init(work.resolve("develop-first"));
        develop.write(".circleci/config.yml", config("build")).commit("config");
        develop.checkoutNewBranch("develop");
        GitMirrors mirrors = new GitMirrors(work.resolve("default-branch-mirrors"), RepositoryPolicy.ANYTHING);

        assertThat(mirrors.fetch(UUID.randomUUID(), repo.dir().toString(), GitRef.branch("main"), null,
                Instant.now()).defaultBranch()).isEqualTo("main");
        assertThat(mirrors.fetch(UUID.randomUUID(), develop.dir().toString(), GitRef.branch("main"), null,
                Instant.now()).defaultBranch()).isEqualTo("develop");
    }

    @Test
    void a_tag_builds_the_commit_it_points_to_with_tag_filters_applied() {
        String tagged = repo.write(".circleci/config.yml", """
                version: 2.1
                jobs:
                  release:
                    docker: [{image: alpine}]
                    steps: [{run: ./release.sh}]
                  always:
                    docker: [{image: alpine}]
                    steps: [{run: make}]
                workflows:
                  w:
                    jobs:
                      - always
                      - release:
                          filters:
                            tags: {only: /^v.*/}
                """).commit("release config");
        repo.tag("v1.0.0");
        repo.write(".circleci/config.yml", config("later")).commit("later");

        JsonNode pipeline = planned(trigger("{\"tag\": \"v1.0.0\"}"));

        assertThat(pipeline.get("vcs").get("revision").asText()).isEqualTo(tagged);
        assertThat(pipeline.get("vcs").get("tag").asText()).isEqualTo("v1.0.0");
        assertThat(jobNames(pipeline)).containsExactly("release");
    }

    @Test
    void a_gantry_config_takes_precedence_over_the_circleci_one() {
        repo.write(".circleci/config.yml", config("circleci")).write(".gantry/config.yml", config("gantry"))
                .commit("both");

        assertThat(jobNames(planned(trigger("{\"branch\": \"main\"}")))).containsExactly("gantry");
    }

    @Test
    void a_branch_that_does_not_exist_errors_the_pipeline_naming_the_branch() {
        repo.write(".circleci/config.yml", CONFIG).commit("config");

        JsonNode pipeline = planned(trigger("{\"branch\": \"feature/nope\"}"));

        assertThat(pipeline.get("state").asText()).isEqualTo("errored");
        assertThat(pipeline.get("vcs").get("revision").isNull()).isTrue();
        assertThat(pipeline.get("errors")).singleElement().satisfies(error -> {
            assertThat(error.get("type").asText()).isEqualTo("config-fetch");
            assertThat(error.get("message").asText()).contains("branch 'feature/nope'");
        });
        assertThat(server.count("gantry.workflow")).isZero();
    }

    @Test
    void a_revision_not_in_the_repository_errors_the_pipeline() {
        repo.write(".circleci/config.yml", CONFIG).commit("config");

        JsonNode pipeline = planned(trigger("{\"branch\": \"main\", \"revision\": \"deadbeef00\"}"));

        assertThat(pipeline.get("state").asText()).isEqualTo("errored");
        assertThat(pipeline.get("errors").get(0).get("message").asText()).contains("revision deadbeef00");
    }

    @Test
    void an_invalid_config_errors_the_pipeline_with_each_compiler_error_and_its_position() {
        String head = repo.write(".circleci/config.yml", """
                version: 2.1
                jobs:
                  build:
                    docker: [{image: alpine}]
                    steps: [{run: make}]
                  deploy:
                    docker: [{image: alpine}]
                    steps: [{run: make deploy}]
                workflows:
                  w:
                    jobs:
                      - build
                      - deploy:
                          requires: [biuld]
                """).commit("broken");

        JsonNode pipeline = planned(trigger("{\"branch\": \"main\"}"));

        assertThat(pipeline.get("state").asText()).isEqualTo("errored");
        assertThat(pipeline.get("vcs").get("revision").asText()).as("the commit the errors are about").isEqualTo(head);
        assertThat(pipeline.get("errors")).isNotEmpty().allSatisfy(error -> {
            assertThat(error.get("type").asText()).isEqualTo("config");
            assertThat(error.get("message").asText()).matches("\\.circleci/config\\.yml:\\d+:\\d+: error: .*");
        });
        assertThat(pipeline.get("errors").toString()).contains("biuld");
    }

    @Test
    void a_commit_without_a_config_errors_the_pipeline_naming_both_paths() {
        repo.write("README.md", "no config here\n").commit("readme");

        JsonNode pipeline = planned(trigger("{\"branch\": \"main\"}"));

        assertThat(pipeline.get("state").asText()).isEqualTo("errored");
        assertThat(pipeline.get("errors")).singleElement().satisfies(error -> {
            assertThat(error.get("type").asText()).isEqualTo("config-fetch");
            assertThat(error.get("message").asText()).contains(".gantry/config.yml", ".circleci/config.yml");
        });
    }

    @Test
    void an_unknown_resource_class_errors_the_pipeline_listing_the_known_ones() {
        repo.write(".circleci/config.yml", """
                version: 2.1
                jobs:
                  build:
                    docker: [{image: alpine}]
                    resource_class: gigantic
                    steps: [{run: make}]
                workflows:
                  w:
                    jobs: [build]
                """).commit("gigantic");

        JsonNode pipeline = planned(trigger("{\"branch\": \"main\"}"));

        assertThat(pipeline.get("state").asText()).isEqualTo("errored");
        assertThat(pipeline.get("errors")).singleElement().satisfies(error -> {
            assertThat(error.get("type").asText()).isEqualTo("plan");
            assertThat(error.get("message").asText()).contains("'build'", "'gigantic'", ResourceClasses.defaults().known());
        });
    }

    static final String SETUP = """
            version: 2.1
            setup: true
            jobs:
              generate:
                docker: [{image: alpine}]
                steps: [{run: ./generate.sh}]
            workflows:
              setup:
                jobs: [generate]
            """;
    static final String CONTINUED = """
            version: 2.1
            parameters:
              deploy: {type: boolean, default: false}
            jobs:
              build:
                docker: [{image: alpine}]
                steps: [{run: make}]
            workflows:
              main:
                jobs: [build]
              deploy:
                when: << pipeline.parameters.deploy >>
                jobs: [build]
            """;

    @Test
    void a_setup_config_runs_its_workflow_and_one_continuation_adds_the_continued_workflows() {
        repo.write(".circleci/config.yml", SETUP).commit("setup");

        JsonNode pipeline = planned(trigger("{\"branch\": \"main\"}"));
        assertThat(pipeline.get("state").asText()).isEqualTo("setup");
        assertThat(jobNames(pipeline)).containsExactly("generate");
        String key = continuationKey(pipeline);

        continuations().continuePipeline(key, CONTINUED, Map.of("deploy", true));

        assertThat(state(UUID.fromString(pipeline.get("id").asText()))).isEqualTo("created");
        assertThat(jobNames(pipeline)).containsExactly("generate", "build", "build");
        assertThat(rows("SELECT setup_source || '|' || source FROM gantry.pipeline_config "
                + "WHERE pipeline_id = CAST(:p AS uuid)", pipeline.get("id").asText())).singleElement().asString()
                .startsWith(SETUP + "|" + CONTINUED);
        assertThatThrownBy(() -> continuations().continuePipeline(key, CONTINUED, Map.of()))
                .hasMessageContaining("a continuation key works once");
        assertThatThrownBy(() -> continuations().continuePipeline("not-a-key", CONTINUED, Map.of()))
                .hasMessageContaining("unknown continuation key");
    }

    @Test
    void a_continued_config_that_does_not_compile_errors_the_pipeline_with_why() {
        repo.write(".circleci/config.yml", SETUP).commit("setup");
        JsonNode pipeline = planned(trigger("{\"branch\": \"main\"}"));

        assertThatThrownBy(() -> continuations().continuePipeline(continuationKey(pipeline),
                "version: 2.1\nworkflows:\n  main:\n    jobs: [missing]\n", Map.of()))
                .hasMessageContaining("does not compile");

        JsonNode errored = api.get("/api/v2/pipeline/" + pipeline.get("id").asText()).json();
        assertThat(errored.get("state").asText()).isEqualTo("errored");
        assertThat(errored.get("errors").toString()).contains("missing");
    }

    private static String continuationKey(JsonNode pipeline) {
        return rows("SELECT key FROM gantry.pipeline_continuation WHERE pipeline_id = CAST(:p AS uuid)",
                pipeline.get("id").asText()).getFirst();
    }

    private static Continuations continuations() {
        return new Continuations(jdbi, OrbResolver.NONE, ResourceClasses.defaults(), InstantSource.system(), () -> { });
    }

    @Test
    void trigger_parameters_reach_the_compiler() {
        repo.write(".circleci/config.yml", """
                version: 2.1
                parameters:
                  replicas: {type: integer, default: 1}
                  deploy: {type: boolean, default: false}
                jobs:
                  build:
                    docker: [{image: alpine}]
                    steps: [{run: echo << pipeline.parameters.replicas >>}]
                workflows:
                  w:
                    when: << pipeline.parameters.deploy >>
                    jobs: [build]
                """).commit("parameters");

        JsonNode pipeline = planned(trigger("{\"branch\": \"main\", \"parameters\": {\"replicas\": 3, \"deploy\": true}}"));

        assertThat(pipeline.get("state").asText()).as(pipeline.toString()).isEqualTo("created");
        assertThat(jsonByJob(pipeline.get("id").asText(), "spec").get("build").get("steps").get(0).get("run")
                .get("command").asText()).isEqualTo("echo 3");
    }

    @Test
    void a_config_with_no_workflows_to_run_creates_the_pipeline_without_workflows() {
        repo.write(".circleci/config.yml", """
                version: 2.1
                jobs:
                  build:
                    docker: [{image: alpine}]
                    steps: [{run: make}]
                workflows:
                  w:
                    jobs:
                      - build:
                          filters: {branches: {only: release}}
                """).commit("filtered");

        JsonNode pipeline = planned(trigger("{\"branch\": \"main\"}"));

        assertThat(pipeline.get("state").asText()).isEqualTo("created");
        assertThat(server.count("gantry.workflow")).isZero();
        assertThat(advanceMessages()).isZero();
    }

    @Test
    void the_same_plan_message_delivered_twice_creates_the_workflows_once() throws Exception {
        repo.write(".circleci/config.yml", CONFIG).commit("config");
        PlanBuilder builder = builder();
        UUID pipelineId = pendingPipeline(projectId);

        List<PlanBuilder.Outcome> racing = race(() -> builder.build(pipelineId, false),
                () -> builder.build(pipelineId, false));
        PlanBuilder.Outcome again = builder.build(pipelineId, false);

        assertThat(racing).containsExactlyInAnyOrder(PlanBuilder.Outcome.CREATED, PlanBuilder.Outcome.SKIPPED);
        assertThat(again).isEqualTo(PlanBuilder.Outcome.SKIPPED);
        assertThat(server.count("gantry.workflow")).isEqualTo(2);
        assertThat(server.count("gantry.job")).isEqualTo(5);
        assertThat(server.count("gantry.job_task")).as("tasks queued once").isEqualTo(jdbi.withHandle(h -> h
                .createQuery("SELECT sum(parallelism) FROM gantry.job WHERE requires = '{}'").mapTo(Long.class).one()));
        assertThat(rows("SELECT last_job_number::text FROM gantry.project WHERE id = CAST(:p AS uuid)", projectId))
                .containsExactly("5");
    }

    @Test
    void a_repository_that_cannot_be_cloned_is_retried_then_recorded_on_the_last_delivery() throws Exception {
        Path notARepository = Files.createDirectories(work.resolve("plain"));
        String plain = server.createProject("acme", "plain", notARepository.toString()).text("id");
        PlanBuilder builder = builder();
        UUID pipelineId = pendingPipeline(plain);

        assertThatThrownBy(() -> builder.build(pipelineId, false)).isInstanceOf(ConfigFetchException.class)
                .satisfies(e -> assertThat(((ConfigFetchException) e).transientFailure()).isTrue());
        assertThat(state(pipelineId)).isEqualTo("pending");

        assertThat(builder.build(pipelineId, true)).isEqualTo(PlanBuilder.Outcome.ERRORED);
        JsonNode pipeline = api.get("/api/v2/pipeline/" + pipelineId).json();
        assertThat(pipeline.get("errors").get(0).get("type").asText()).isEqualTo("config-fetch");
        assertThat(pipeline.get("errors").get(0).get("message").asText()).startsWith("could not fetch the repository (the server's log has git's answer under error id ");
    }

    private static String config(String job) {
        return """
                version: 2.1
                jobs:
                  %s:
                    docker: [{image: alpine}]
                    steps: [{run: make}]
                workflows:
                  w:
                    jobs: [%s]
                """.formatted(job, job);
    }

    private PlanBuilder builder() {
        return new PlanBuilder(jdbi, queues, new GitMirrors(work.resolve("mirrors"), RepositoryPolicy.ANYTHING), OrbResolver.NONE,
                ResourceClasses.defaults(), InstantSource.system(), () -> { });
    }

    /** A pending pipeline on branch main with no plan message: only the test's builder will plan it. */
    private static UUID pendingPipeline(String project) {
        UUID id = UUID.randomUUID();
        jdbi.useHandle(h -> h.createUpdate("""
                INSERT INTO gantry.pipeline (id, project_id, number, state, branch, parameters, request_hash,
                                             created_at, updated_at)
                VALUES (:id, CAST(:project AS uuid), 1000, 'pending', 'main', '{}', '\\x00', now(), now())
                """).bind("id", id).bind("project", project).execute());
        return id;
    }

    private static String trigger(String body) {
        ApiClient.Answer triggered = api.post("/api/v2/project/gantry/acme/app/pipeline", body);
        assertThat(triggered.status()).as(triggered.body()).isEqualTo(201);
        return triggered.text("id");
    }

    /** The pipeline once the server's plan builder has settled it. */
    private static JsonNode planned(String id) {
        return await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                .until(() -> api.get("/api/v2/pipeline/" + id).json(), p -> !p.get("state").asText().equals("pending"));
    }

    private static String state(UUID pipelineId) {
        return rows("SELECT state FROM gantry.pipeline WHERE id = CAST(:p AS uuid)", pipelineId.toString()).getFirst();
    }

    private static List<String> jobNames(JsonNode pipeline) {
        return rows("SELECT j.name FROM gantry.job j JOIN gantry.workflow w ON w.id = j.workflow_id "
                + "WHERE w.pipeline_id = CAST(:p AS uuid) ORDER BY j.number", pipeline.get("id").asText());
    }

    private static Map<String, JsonNode> jsonByJob(String pipelineId, String column) {
        Map<String, JsonNode> byName = new HashMap<>();
        // column is one of the test's fixed names, never input
        jdbi.useHandle(h -> h.createQuery("SELECT j.name, j." + column + "::text AS value FROM gantry.job j "
                        + "JOIN gantry.workflow w ON w.id = j.workflow_id WHERE w.pipeline_id = CAST(:p AS uuid)")
                .bind("p", pipelineId)
                .map((rs, ctx) -> {
                    String value = rs.getString("value");
                    byName.put(rs.getString("name"), value == null ? null : json(value));
                    return value;
                })
                .list());
        return byName;
    }

    private static List<String> rows(String sql, String p) {
        return jdbi.withHandle(h -> h.createQuery(sql).bind("p", p).mapTo(String.class).list());
    }

    private static long advanceMessages() {
        return jdbi.withHandle(h -> h.createQuery(
                "SELECT count(*) FROM gantry_queue.message WHERE queue = 'workflow-advance'").mapTo(Long.class).one());
    }

    @SafeVarargs
    private static <T> List<T> race(Callable<T>... calls) throws Exception {
        try (ExecutorService threads = Executors.newFixedThreadPool(calls.length)) {
            List<Future<T>> futures = threads.invokeAll(List.of(calls));
            List<T> results = new ArrayList<>();
            for (Future<T> future : futures) {
                results.add(future.get());
            }
            return results;
        }
    }

    private static JsonNode json(String text) {
        try {
            return Json.MAPPER.readTree(text);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
