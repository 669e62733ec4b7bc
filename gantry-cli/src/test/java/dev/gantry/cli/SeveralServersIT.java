package dev.gantry.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gantry.cli.client.GantryClient;
import dev.gantry.server.storage.S3Settings;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import dev.gantry.testkit.LocalS3;
import dev.gantry.testkit.TcpBalancer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three server processes on one database and one bucket behind a load balancer, as a team that outgrew one machine
 * runs them, each with {@code --fleet}: one server leads the autoscaler. While 30 jobs run on agents that reach the
 * servers through the balancer, a server that does not lead is killed with SIGKILL: every pipeline, including ones
 * triggered after the kill, completes once, every job ran exactly once, none was retried. Then the leader is killed:
 * another server takes the autoscaler over and launches its instance.
 */
class SeveralServersIT {
    private static final int PIPELINES = 3;
    private static final int JOBS_PER_PIPELINE = 10;
    private static final int JOBS = PIPELINES * JOBS_PER_PIPELINE;
    private static final String PROJECT = "gantry/local/wide";

    static final String FLEET = """
            clusters:
              - name: lead
                min: 1
                max: 1
                types:
                  - {name: small, vcpu: 1, memory_gb: 1, disk_gb: 10}
            """;

    @RegisterExtension
    final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension(32);

    /** Kept when the test fails: each server's processes log under {@code server-N/logs}. */
    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path home;
    @TempDir
    Path repository;

    LocalS3 s3;
    final List<GantryProcesses> servers = new ArrayList<>();
    TcpBalancer balancer;
    JobTrace traced;
    Path trace;

    @BeforeEach
    void start() throws Exception {
        s3 = LocalS3.start();
        trace = Files.createFile(home.resolve("trace.log"));
        traced = new JobTrace(trace);
        TestRepository.create(repository, "/e2e/gated-wide.yml", trace);
        Map<String, String> settings = new HashMap<>(Map.of(
                "GANTRY_AGENT_HEARTBEAT_INTERVAL", "1s", "GANTRY_AGENT_LEASE_TIMEOUT", "10s",
                // Three servers' JVMs starting on a small machine: their first connection may take a while.
                "GANTRY_DATABASE_CONNECT_TIMEOUT", "10s", "GANTRY_DATABASE_POOL_SIZE", "5",
                S3Settings.BLOB_STORE_VARIABLE, "s3://" + LocalS3.BUCKET + "/gantry",
                S3Settings.ENDPOINT_VARIABLE, s3.endpoint().toString(),
                S3Settings.ACCESS_KEY_VARIABLE, LocalS3.ACCESS_KEY, S3Settings.SECRET_KEY_VARIABLE, LocalS3.SECRET_KEY));
        Path fleet = Files.writeString(home.resolve("fleet.yml"), FLEET);
        for (int i = 1; i <= 3; i++) {
            Path serverHome = Files.createDirectories(home.resolve("server-" + i));
            if (i > 1) { // docs/server.md: the first server's token and key files, copied to every other
                for (String file : List.of("admin-token", "agent-token", "master-key")) {
                    Files.copy(home.resolve("server-1").resolve(file), serverHome.resolve(file));
                }
            }
            GantryProcesses server = new GantryProcesses(serverHome, pg.jdbcUrl(), settings);
            servers.add(server);
            server.startServer(List.of("--fleet", fleet.toString(), "--executor", "shell"));
        }
        balancer = TcpBalancer.start(servers.stream().map(GantryProcesses::url).toList(), "/healthz");
        assertThat(admin().post("/api/v2/project", Map.of("name", "wide", "repo_url", repository.toString()))
                .status()).isEqualTo(201);
    }

    @AfterEach
    void stop() throws Exception {
        if (balancer != null) {
            balancer.close();
        }
        servers.forEach(GantryProcesses::close);
        s3.close();
    }

    @Test
    void a_killed_server_loses_nothing_and_a_killed_leader_hands_the_autoscaler_on() throws Exception {
        PipelineProbe probe = new PipelineProbe(this::admin, PROJECT);
        GantryProcesses leader = awaitOneLeader(servers);
        GantryProcesses victim = servers.stream().filter(s -> s != leader).findFirst().orElseThrow();
        // Agents reach the servers only through the balancer. With the leader's local agent they have one slot per
        // job; the last pipeline is triggered after the kill.
        servers.getFirst().startAgent("left", JOBS / 2, "shell", balancer.url());
        servers.getFirst().startAgent("right", JOBS / 2 - 1, "shell", balancer.url());
        List<String> pipelines = new ArrayList<>();
        for (int i = 0; i < PIPELINES - 1; i++) {
            pipelines.add(probe.trigger());
        }
        await().atMost(Duration.ofMinutes(2)).until(() -> traced.count("start") == 2 * JOBS_PER_PIPELINE);

        victim.killServer();
        pipelines.add(probe.trigger()); // through the balancer, to a live server
        Files.createFile(Path.of(trace + ".gate"));

        for (String pipeline : pipelines) {
            JsonNode done = probe.awaitWorkflow(pipeline, null, "success", "failed", "canceled", "error");
            List<JsonNode> jobs = probe.allJobs(done);
            assertThat(jobs).as("pipeline %s: no job was retried", pipeline).hasSize(JOBS_PER_PIPELINE);
            assertThat(jobs).extracting(j -> j.path("status").asText()).as("pipeline %s", pipeline)
                    .containsOnly("success");
        }
        Map<Long, List<String>> runs = traced.runsByJobNumber();
        assertThat(runs).hasSize(JOBS);
        runs.forEach((job, words) -> assertThat(words).as("job %d ran once, start to end", job)
                .containsExactly("start", "end"));
        assertThat(admin().get("/api/v2/project/" + PROJECT + "/pipeline").json().path("items")).hasSize(PIPELINES);

        // The autoscaler's actions are in the database: a server that does not lead lists them too.
        GantryProcesses follower = servers.stream().filter(s -> s != leader && s != victim).findFirst().orElseThrow();
        assertThat(follower.admin().get("/api/v2/insights/fleet").json().path("events").toString())
                .contains("\"launched\"");

        leader.killServer();
        List<GantryProcesses> alive = servers.stream().filter(s -> s != leader && s != victim).toList();
        GantryProcesses successor = awaitOneLeader(alive);
        await().atMost(Duration.ofSeconds(60)).until(() -> !readyInstances(successor).isEmpty());
    }

    /** Waits until exactly one of {@code candidates} says it leads the autoscaler and all agree; returns it. */
    private static GantryProcesses awaitOneLeader(List<GantryProcesses> candidates) {
        GantryProcesses[] leader = new GantryProcesses[1];
        await().atMost(Duration.ofSeconds(45)).pollInterval(Duration.ofMillis(500)).ignoreExceptions().until(() -> {
            List<GantryProcesses> leading = new ArrayList<>();
            List<String> named = new ArrayList<>();
            for (GantryProcesses server : candidates) {
                JsonNode fleet = server.admin().get("/api/v2/insights/fleet").json();
                named.add(fleet.path("leader").asText());
                if (fleet.path("this_server").asBoolean()) {
                    leading.add(server);
                }
            }
            if (leading.size() != 1 || named.stream().distinct().count() != 1) {
                return false;
            }
            leader[0] = leading.getFirst();
            return true;
        });
        return leader[0];
    }

    private static List<String> readyInstances(GantryProcesses server) {
        List<String> ids = new ArrayList<>();
        for (JsonNode i : server.admin().get("/api/v2/insights/fleet").json().path("instances")) {
            if (i.path("state").asText().equals("ready")) {
                ids.add(i.path("id").asText());
            }
        }
        return ids;
    }

    private GantryClient admin() {
        try {
            return new GantryClient(balancer.url(), Files.readString(servers.getFirst().adminTokenFile()).strip());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
