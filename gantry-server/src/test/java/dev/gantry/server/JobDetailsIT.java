package dev.gantry.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gantry.server.http.Json;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code GET /api/v2/project/{slug}/job/{number}}: a job's details in CircleCI's shape, with the steps and parallel
 * runs its agent reported (rows inserted here as the agent API would write them).
 */
class JobDetailsIT {
    @RegisterExtension
    static final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension();

    static final String CONFIG = """
            version: 2.1
            jobs:
              test:
                docker: [{image: cimg/node:20.11}, {image: postgres:16}]
                resource_class: large
                parallelism: 2
                steps:
                  - checkout
                  - run: npm test
            workflows:
              main:
                jobs:
                  - test:
                      context: [npm-token]
                  - hold:
                      type: approval
                      requires: [test]
            """;
    static final String JOBS = "/api/v2/project/gantry/acme/app/job/";

    @TempDir
    static Path home;
    @TempDir
    Path work;

    static TestServer server;
    static ApiClient api;
    static Jdbi jdbi;

    String pipelineId;

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
    void planned() {
        pg.truncate("gantry.project", "gantry.agent", "gantry_queue.message");
        TestRepo repo = TestRepo.init(work.resolve("app"));
        repo.write(".circleci/config.yml", CONFIG).commit("config");
        server.createProject("acme", "app", repo.dir().toString());
        ApiClient.Answer triggered = api.post("/api/v2/project/gantry/acme/app/pipeline", "{\"branch\": \"main\"}");
        pipelineId = triggered.text("id");
        JsonNode pipeline = await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                .until(() -> api.get("/api/v2/pipeline/" + pipelineId).json(),
                        p -> !p.get("state").asText().equals("pending"));
        assertThat(pipeline.get("state").asText()).as(pipeline.toString()).isEqualTo("created");
    }

    @Test
    void a_queued_job_shows_its_project_pipeline_workflow_executor_image_and_why_it_waits() {
        // The orchestrator queues the root job as soon as it is planned; no agent ever comes in this test.
        JsonNode job = await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                .until(() -> api.get(JOBS + "1").json(), j -> j.get("status").asText().equals("queued"));

        assertThat(job.get("number").asLong()).isEqualTo(1);
        assertThat(job.get("name").asText()).isEqualTo("test");
        assertThat(job.get("type").asText()).isEqualTo("build");
        assertThat(job.get("created_at").asText()).endsWith("Z");
        assertThat(job.get("queued_at").asText()).endsWith("Z");
        assertThat(job.get("started_at").isNull()).isTrue();
        assertThat(job.get("duration").isNull()).isTrue();
        assertThat(job.get("parallelism").asInt()).isEqualTo(2);
        assertThat(job.get("project")).isEqualTo(json("{\"id\": \"" + api.get("/api/v2/project/gantry/acme/app")
                .text("id") + "\", \"slug\": \"gantry/acme/app\", \"name\": \"app\", \"external_url\": "
                + Json.write(work.resolve("app").toString()) + "}"));
        assertThat(job.get("web_url").asText()).isEqualTo(api.baseUrl() + "/jobs/gantry/acme/app/1");
        assertThat(job.get("messages")).isEqualTo(json("[{\"type\": \"info\", \"message\": "
                + Json.write(job.at("/waiting/message").asText()) + ", \"reason\": \"no_instance_large_enough\"}]"));
        assertThat(job.get("organization").get("name").asText()).isEqualTo("acme");
        assertThat(job.get("pipeline").get("id").asText()).isEqualTo(pipelineId);
        assertThat(job.get("latest_workflow").get("name").asText()).isEqualTo("main");
        assertThat(job.get("latest_workflow").get("id").asText()).isEqualTo(api.get("/api/v2/pipeline/" + pipelineId
                + "/workflow").json().get("items").get(0).get("id").asText());
        assertThat(job.get("executor")).isEqualTo(json("{\"type\": \"docker\", \"resource_class\": \"large\"}"));
        assertThat(job.get("image").asText()).isEqualTo("cimg/node:20.11");
        assertThat(job.get("contexts")).isEqualTo(json("[{\"name\": \"npm-token\"}]"));
        assertThat(job.get("steps")).isEmpty();
        assertThat(job.get("parallel_runs")).isEqualTo(json("[{\"index\": 0, \"status\": \"queued\"}, "
                + "{\"index\": 1, \"status\": \"queued\"}]"));
        assertThat(job.at("/waiting/reason").asText()).isEqualTo("no_instance_large_enough");
        assertThat(job.at("/waiting/message").asText()).contains("pool default has no instance that is up or starting")
                .contains("bin/gantry agent").endsWith("--pool default --cpu 4 --memory 8");
        assertThat(job.at("/waiting/since").asText()).isEqualTo(job.get("queued_at").asText());
        assertThat(job.at("/waiting/for_ms").asLong()).isNotNegative();
        assertThat(job.at("/waiting/estimated_start").isNull()).as("nothing could run it").isTrue();
    }

    @Test
    void a_blocked_job_says_which_required_jobs_it_waits_for() {
        JsonNode hold = await().atMost(Duration.ofSeconds(30)).until(() -> api.get(JOBS + "2").json(),
                j -> j.get("status").asText().equals("blocked"));
        assertThat(hold.at("/waiting/reason").asText()).isEqualTo("requires");
        assertThat(hold.at("/waiting/message").asText()).isEqualTo("waiting for the jobs it requires: test (queued)");
        assertThat(hold.at("/waiting/since").asText()).isEqualTo(hold.get("created_at").asText());
    }

    @Test
    void a_queued_job_says_when_no_agent_is_big_enough_when_one_has_room_and_when_the_ones_that_could_are_full() {
        await().atMost(Duration.ofSeconds(30)).until(() -> api.get(JOBS + "1").json().get("status").asText()
                .equals("queued"));
        jdbi.useHandle(h -> h.execute("INSERT INTO gantry.agent (id, name, cpu, memory_mb, registered_at, "
                + "last_seen_at) VALUES (gen_random_uuid(), 'small-box', 2, 4096, now(), now())"));
        JsonNode small = api.get(JOBS + "1").json().get("waiting");
        assertThat(small.get("reason").asText()).isEqualTo("no_instance_large_enough");
        assertThat(small.get("message").asText()).contains("class large needs 4 vCPU / 8192 MB")
                .contains("the largest instance in pool default has 2 vCPU / 4096 MB");

        jdbi.useHandle(h -> h.execute("INSERT INTO gantry.agent (id, name, cpu, memory_mb, registered_at, "
                + "last_seen_at) VALUES ('00000000-0000-0000-0000-00000000b16b', 'big-box', 8, 16384, now(), now())"));
        JsonNode starting = api.get(JOBS + "1").json().get("waiting");
        assertThat(starting.get("reason").asText()).as("both nodes fit the big box").isEqualTo("starting");
        assertThat(starting.get("message").asText()).contains("00000000-0000-0000-0000-00000000b16b");

        // Node 0 runs on the big box, which then (smaller than it said) has no room for node 1.
        jdbi.useHandle(h -> h.execute("UPDATE gantry.agent SET cpu = 4, memory_mb = 8192 WHERE name = 'big-box'"));
        jdbi.useHandle(h -> h.execute("""
                UPDATE gantry.job_task SET status = 'running', agent_id = '00000000-0000-0000-0000-00000000b16b',
                       lease = gen_random_uuid(), lease_until = now() + interval '1 minute', started_at = now()
                WHERE node_index = 0 AND job_id = (SELECT id FROM gantry.job WHERE number = 1)
                """));
        JsonNode full = api.get(JOBS + "1").json().get("waiting");
        assertThat(full.get("reason").asText()).isEqualTo("no_capacity");
        assertThat(full.get("message").asText()).contains("none of the 1 instances in pool default that can run "
                + "class large");

        jdbi.useHandle(h -> h.execute("UPDATE gantry.agent SET last_seen_at = now() - interval '5 minutes'"));
        assertThat(api.get(JOBS + "1").json().at("/waiting/reason").asText()).as("agents long gone")
                .isEqualTo("no_instance_large_enough");
    }

    @Test
    void a_job_that_ran_shows_each_step_with_one_action_per_node_and_its_parallel_runs() {
        // Once the orchestrator has queued it (and made its tasks), the job runs as an agent would report it.
        await().atMost(Duration.ofSeconds(30)).until(() -> api.get(JOBS + "1").json().get("status").asText()
                .equals("queued"));
        jdbi.useHandle(h -> {
            h.execute("""
                    UPDATE gantry.job SET status = 'failed', queued_at = '2026-11-30T10:00:00Z',
                           started_at = '2026-11-30T10:00:01Z', stopped_at = '2026-11-30T10:00:31.5Z'
                    WHERE number = 1
                    """);
            h.execute("""
                    UPDATE gantry.job_task t
                    SET status = CASE t.node_index WHEN 0 THEN 'success' ELSE 'failed' END,
                        queued_at = '2026-11-30T10:00:00Z', started_at = '2026-11-30T10:00:01Z',
                        stopped_at = '2026-11-30T10:00:31Z'
                    FROM gantry.job j WHERE j.id = t.job_id AND j.number = 1
                    """);
            h.execute("""
                    INSERT INTO gantry.job_step (job_id, node_index, step_index, name, status, exit_code, output_offset,
                                                 started_at, stopped_at)
                    SELECT j.id, s.node, s.step, s.name, s.status, s.exit_code, 0, s.started, s.stopped
                    FROM gantry.job j, (VALUES
                        (1, 1, 'npm test', 'failed', 1, timestamptz '2026-11-30T10:00:05Z', timestamptz '2026-11-30T10:00:31Z'),
                        (0, 0, 'Checkout code', 'success', 0, '2026-11-30T10:00:01Z', '2026-11-30T10:00:05Z'),
                        (1, 0, 'Checkout code', 'success', 0, '2026-11-30T10:00:01Z', '2026-11-30T10:00:04Z'),
                        (0, 1, 'npm test', 'success', 0, '2026-11-30T10:00:05Z', '2026-11-30T10:00:30Z')
                    ) AS s(node, step, name, status, exit_code, started, stopped)
                    WHERE j.number = 1
                    """);
        });

        JsonNode job = api.get(JOBS + "1").json();

        assertThat(job.get("status").asText()).isEqualTo("failed");
        assertThat(job.get("queued_at").asText()).isEqualTo("2026-11-30T10:00:00.000Z");
        assertThat(job.get("duration").asLong()).isEqualTo(30_500);
        assertThat(job.get("parallel_runs")).isEqualTo(json("""
                [{"index": 0, "status": "success"}, {"index": 1, "status": "failed"}]"""));
        assertThat(job.get("steps")).isEqualTo(json("""
                [{"name": "Checkout code", "actions": [
                   {"index": 0, "step": 0, "name": "Checkout code", "status": "success", "exit_code": 0,
                    "start_time": "2026-11-30T10:00:01.000Z", "end_time": "2026-11-30T10:00:05.000Z"},
                   {"index": 1, "step": 0, "name": "Checkout code", "status": "success", "exit_code": 0,
                    "start_time": "2026-11-30T10:00:01.000Z", "end_time": "2026-11-30T10:00:04.000Z"}]},
                 {"name": "npm test", "actions": [
                   {"index": 0, "step": 1, "name": "npm test", "status": "success", "exit_code": 0,
                    "start_time": "2026-11-30T10:00:05.000Z", "end_time": "2026-11-30T10:00:30.000Z"},
                   {"index": 1, "step": 1, "name": "npm test", "status": "failed", "exit_code": 1,
                    "start_time": "2026-11-30T10:00:05.000Z", "end_time": "2026-11-30T10:00:31.000Z"}]}]"""));
    }

    @Test
    void an_approval_job_runs_nowhere() {
        JsonNode hold = api.get(JOBS + "2").json();

        assertThat(hold.get("type").asText()).isEqualTo("approval");
        assertThat(hold.get("executor")).isEqualTo(json("{\"type\": null, \"resource_class\": null}"));
        assertThat(hold.get("image").isNull()).isTrue();
    }

    @Test
    void unknown_jobs_and_projects_are_404_and_malformed_numbers_400() {
        for (String path : List.of(JOBS + "3", JOBS + "999999", "/api/v2/project/gantry/acme/nope/job/1",
                "/api/v2/project/svn/acme/app/job/1")) {
            ApiClient.Answer answer = api.get(path);

            assertThat(answer.status()).as(path).isEqualTo(404);
            assertThat(answer.text("message")).as(path).startsWith("no ");
        }
        for (String number : List.of("0", "-1", "abc", "1.5", "99999999999999999999")) {
            ApiClient.Answer answer = api.get(JOBS + number);

            assertThat(answer.status()).as(number).isEqualTo(400);
            assertThat(answer.text("field")).isEqualTo("number");
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
