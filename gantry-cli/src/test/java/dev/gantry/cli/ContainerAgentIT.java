package dev.gantry.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.github.dockerjava.api.DockerClient;
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
 * A real server and a real agent process on the docker executor (the Podman service of {@code bin/containers
 * setup}): an agent killed with SIGKILL leaves its job's container running; started again under its name, it removes
 * that container before taking work, and the job's retry runs in a fresh one.
 */
class ContainerAgentIT {
    static final String AGENT = "boxed";

    @RegisterExtension
    final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension(4);
    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path home;
    @TempDir
    Path repository;

    GantryProcesses gantry;
    PipelineProbe probe;
    DockerClient docker;

    @BeforeEach
    void start() throws IOException {
        docker = TestDocker.client();
        TestRepository.create(repository, "/containers/slow.yml", Files.createFile(home.resolve("unused")));
        gantry = new GantryProcesses(home.resolve("gantry"), pg.jdbcUrl(), Map.of(
                "GANTRY_AGENT_HEARTBEAT_INTERVAL", "500ms", "GANTRY_AGENT_LEASE_TIMEOUT", "4s"));
        gantry.startServer();
        assertThat(gantry.admin().post("/api/v2/project", Map.of("name", "boxed", "repo_url",
                repository.toString())).status()).isEqualTo(201);
        probe = new PipelineProbe(gantry::admin, "gantry/local/boxed");
    }

    @AfterEach
    void stop() {
        gantry.close();
        containers().forEach(id -> docker.removeContainerCmd(id).withForce(true).exec());
    }

    @Test
    void an_agent_killed_mid_job_removes_its_leftover_container_when_it_starts_again() {
        Process doomed = gantry.startAgent(AGENT, 2, "docker");
        String pipeline = probe.trigger();
        JsonNode workflow = probe.awaitWorkflow(pipeline, null, "running");
        JsonNode first = probe.awaitJobs(workflow, Map.of("slow", "running")).get("slow");
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions()
                .until(() -> probe.output(first, 0).contains("working in"));
        List<String> left = containers();
        assertThat(left).as("the job's container").hasSize(1);

        gantry.kill(doomed);
        assertThat(containers()).as("a crash cannot remove it").isEqualTo(left);
        gantry.startAgent(AGENT, 2, "docker");

        await().atMost(Duration.ofSeconds(30)).until(() -> containers().stream().noneMatch(left::contains));
        JsonNode done = probe.awaitWorkflow(pipeline, null, "success", "failed", "canceled");
        assertThat(probe.allJobs(done)).extracting(j -> j.path("name").asText() + ":" + j.path("status").asText())
                .containsExactly("slow:infrastructure_fail", "slow:success");
        assertThat(probe.output(probe.allJobs(done).get(1), 0)).contains("Executor: docker", "as circleci", "done");
        await().atMost(Duration.ofSeconds(30)).until(() -> containers().isEmpty());
    }

    private List<String> containers() {
        return docker.listContainersCmd().withShowAll(true).withLabelFilter(Map.of("dev.gantry.agent", AGENT))
                .exec().stream().map(c -> c.getId()).toList();
    }
}
