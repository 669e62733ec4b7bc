package dev.gantry.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * The database goes down while 50 jobs run on real agent processes, the jobs end during the outage, and one agent is
 * killed with SIGKILL and started again meanwhile: once the database is back every job has run exactly once and
 * succeeded, none is {@code infrastructure_fail}, no job was retried. The outage lasts 40 s here, four agent leases
 * and longer than an agent retries one call; {@code -Dgantry.outage=120s} runs the two minutes of issue 31.
 */
class DatabaseOutageEndToEndIT {
    private static final int PIPELINES = 5;
    private static final int JOBS_PER_PIPELINE = 10;
    private static final int JOBS = PIPELINES * JOBS_PER_PIPELINE;

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
        TestRepository.create(repository, "/e2e/gated-wide.yml", trace);
        gantry = new GantryProcesses(home.resolve("gantry"), pg.jdbcUrl(), Map.of(
                "GANTRY_AGENT_HEARTBEAT_INTERVAL", "1s", "GANTRY_AGENT_LEASE_TIMEOUT", "10s"));
        gantry.startServer();
        assertThat(gantry.admin().post("/api/v2/project", Map.of("name", "wide", "repo_url",
                repository.toString())).status()).isEqualTo(201);
        probe = new PipelineProbe(gantry::admin, "gantry/local/wide");
    }

    @AfterEach
    void stop() {
        pg.startServer();
        gantry.close();
    }

    @Test
    void jobs_that_end_while_the_database_is_down_each_run_once_and_succeed() throws Exception {
        Duration outage = Duration.parse("PT" + System.getProperty("gantry.outage", "40s").toUpperCase());
        Process doomed = gantry.startAgent("left", JOBS / 2);
        gantry.startAgent("right", JOBS / 2);
        List<String> pipelines = new ArrayList<>();
        for (int i = 0; i < PIPELINES; i++) {
            pipelines.add(probe.trigger());
        }
        await().atMost(Duration.ofMinutes(3)).until(() -> traced.count("start") == JOBS);

        long down = System.nanoTime();
        pg.stopServer();
        try {
            Files.createFile(Path.of(trace + ".gate"));
            await().atMost(Duration.ofSeconds(20)).until(() -> traced.count("end") == JOBS);
            // An agent whose results wait on its disk dies and comes back: the new process sends them.
            Thread.sleep(2_000);
            gantry.kill(doomed);
            gantry.startAgent("left", JOBS / 2);
            Thread.sleep(Math.max(0, outage.toMillis() - (System.nanoTime() - down) / 1_000_000));
        } finally {
            pg.startServer();
        }

        for (String pipeline : pipelines) {
            JsonNode done = probe.awaitWorkflow(pipeline, null, "success", "failed", "canceled", "error");
            List<JsonNode> jobs = probe.allJobs(done);
            assertThat(jobs).as("pipeline %s: no job was retried", pipeline).hasSize(JOBS_PER_PIPELINE);
            assertThat(jobs).extracting(j -> j.path("status").asText()).as("pipeline %s", pipeline)
                    .containsOnly("success");
            assertThat(done.path("status").asText()).isEqualTo("success");
        }
        Map<Long, List<String>> runs = traced.runsByJobNumber();
        assertThat(runs).hasSize(JOBS);
        runs.forEach((job, words) -> assertThat(words).as("job %d ran once, start to end", job)
                .containsExactly("start", "end"));
        assertThat(Files.readString(gantry.log("agent-left-3"))).contains("results of finished tasks wait");
    }
}
