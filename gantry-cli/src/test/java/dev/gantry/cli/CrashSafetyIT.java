package dev.gantry.cli;

import static dev.gantry.cli.PipelineProbe.number;
import static dev.gantry.cli.PipelineProbe.statuses;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * Crashes with real processes: the server killed with SIGKILL while a workflow runs, and an agent killed with SIGKILL
 * in the middle of a job. Each test has its own database, server, agents and repository, whose three slow jobs in a
 * row append "start"/"end" lines with their job numbers to a trace file.
 */
class CrashSafetyIT {
    @RegisterExtension
    final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension(4);

    /** Kept when a test fails: the processes' logs are in {@code gantry/logs}. */
    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path home;
    @TempDir
    Path repository;

    GantryProcesses gantry;
    PipelineProbe probe;
    Path trace;
    JobTrace traced;

    @BeforeEach
    void start() throws IOException {
        trace = Files.createFile(home.resolve("trace.log"));
        traced = new JobTrace(trace);
        TestRepository.create(repository, "/e2e/slow-chain.yml", trace);
        gantry = new GantryProcesses(home.resolve("gantry"), pg.jdbcUrl(), Map.of(
                "GANTRY_AGENT_HEARTBEAT_INTERVAL", "500ms", "GANTRY_AGENT_LEASE_TIMEOUT", "4s"));
        gantry.startServer();
        assertThat(gantry.admin().post("/api/v2/project", Map.of("name", "chain", "repo_url",
                repository.toString())).status()).isEqualTo(201);
        probe = new PipelineProbe(gantry::admin, "gantry/local/chain");
    }

    @AfterEach
    void stop() {
        gantry.close();
    }

    @Test
    void a_server_killed_mid_workflow_restarts_and_finishes_it_with_no_job_run_twice_at_once() {
        gantry.startAgent("steady", 4);
        String running = probe.trigger();
        JsonNode workflow = probe.awaitWorkflow(running, null, "running");
        probe.awaitJobs(workflow, Map.of("first", "running"));
        // Accepted, then the server dies before it could even plan it: it must not be lost.
        String accepted = probe.trigger();

        gantry.killServer();
        gantry.startServer();

        for (String pipeline : List.of(running, accepted)) {
            JsonNode done = probe.awaitWorkflow(pipeline, null, "success", "failed", "canceled");
            assertThat(done.path("status").asText()).as("pipeline %s", pipeline).isEqualTo("success");
            assertThat(probe.allJobs(done)).as("no job was retried").hasSize(3);
        }
        assertThat(probe.get("/api/v2/project/gantry/local/chain").path("slug").asText()).isNotEmpty();
        Map<Long, List<String>> runs = traced.runsByJobNumber();
        assertThat(runs).hasSize(6);
        runs.forEach((job, lines) -> assertThat(lines).as("job %d ran once, start to end", job)
                .containsExactly("start", "end"));
    }

    @Test
    void an_agent_killed_mid_job_fails_it_as_infrastructure_and_its_retry_succeeds_on_another_agent() {
        Process doomed = gantry.startAgent("doomed", 4);
        String pipeline = probe.trigger();
        JsonNode workflow = probe.awaitWorkflow(pipeline, null, "running");
        JsonNode first = probe.awaitJobs(workflow, Map.of("first", "running")).get("first");
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions()
                .until(() -> probe.output(first, 0).contains("working 1"));

        gantry.kill(doomed);
        gantry.startAgent("rescuer", 4);

        JsonNode done = probe.awaitWorkflow(pipeline, null, "success", "failed", "canceled");
        List<JsonNode> jobs = probe.allJobs(done);
        assertThat(jobs).extracting(j -> j.path("name").asText() + ":" + j.path("status").asText())
                .containsExactly("first:infrastructure_fail", "second:success", "third:success", "first:success");
        assertThat(done.path("status").asText()).isEqualTo("success");
        JsonNode lost = jobs.get(0);
        JsonNode retry = jobs.get(3);
        assertThat(number(retry)).isGreaterThan(number(lost));
        assertThat(probe.output(lost, 0)).contains("working 1").containsIgnoringCase("agent");
        assertThat(probe.output(retry, 0)).contains("working 6");
        assertThat(statuses(probe.jobs(done))).containsEntry("first", "success");
        assertThat(traced.runsByJobNumber().get(number(retry))).containsExactly("start", "end");
    }

    @Test
    void canceling_a_workflow_stops_the_running_jobs_processes_and_starts_nothing_more() throws Exception {
        gantry.startAgent("steady", 4);
        String pipeline = probe.trigger();
        JsonNode workflow = probe.awaitWorkflow(pipeline, null, "running");
        JsonNode first = probe.awaitJobs(workflow, Map.of("first", "running")).get("first");
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions()
                .until(() -> probe.output(first, 0).contains("working 1"));

        assertThat(probe.post("/api/v2/workflow/" + workflow.path("id").asText() + "/cancel", Map.of()).status())
                .isEqualTo(202);

        Map<String, JsonNode> jobs = probe.awaitJobs(workflow, Map.of("first", "canceled"));
        assertThat(statuses(jobs)).containsEntry("second", "canceled").containsEntry("third", "canceled");
        assertThat(probe.awaitWorkflow(pipeline, null, "canceled")).isNotNull();
        Thread.sleep(7_000); // longer than the step would have run
        assertThat(traced.runsByJobNumber().get(number(first))).as("killed before its end").containsExactly("start");
        assertThat(traced.runsByJobNumber()).hasSize(1);
    }
}
