package dev.gantry.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gantry.cli.client.GantryClient;
import dev.gantry.scheduler.fleet.FleetConfig;
import dev.gantry.scheduler.fleet.LocalProvider;
import dev.gantry.server.GantryServer;
import dev.gantry.server.ServerSettings;
import dev.gantry.server.auth.TokenKind;
import dev.gantry.server.fleet.Autoscaling;
import dev.gantry.server.project.RepositoryPolicy;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server autoscaling with the {@code local} provider: real agent processes come up for a burst of jobs, the
 * first-ranked type being unavailable makes it fall back to the next at once, and once the burst is over the fleet
 * drains back to its minimum.
 */
class AutoscalingIT {
    @RegisterExtension
    static final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension(4);

    static final String FLEET = """
            scale_in_after: 3s
            unavailable_for: 10m
            clusters:
              - name: it
                min: 1
                max: 3
                types:
                  - {name: big, vcpu: 8, memory_gb: 16, disk_gb: 80}
                  - {name: small, vcpu: 2, memory_gb: 4, disk_gb: 20}
            """;

    /** Kept when the test fails: the agents' logs are in {@code logs}. */
    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path home;
    @TempDir
    Path repository;

    @Test
    void a_burst_scales_up_past_an_unavailable_type_and_the_fleet_drains_back_to_its_minimum() throws IOException {
        Path trace = Files.createFile(home.resolve("trace.log"));
        TestRepository.create(repository, "/autoscale/config.yml", trace);
        AtomicReference<LocalProvider> provider = new AtomicReference<>();
        Autoscaling.Setup setup = new Autoscaling.Setup(FleetConfig.parse("fleet.yml", FLEET), server -> {
            LocalProvider local = LocalAgents.provider(server, home.resolve(TokenKind.AGENT.fileName()), home, "shell");
            local.setLimit("big", 0); // the first choice is short, as in the October 21 incident
            provider.set(local);
            return local;
        });
        Map<String, ProcessHandle> agents = new ConcurrentHashMap<>();
        try (GantryServer server = GantryServer.start(ServerSettings.defaults().withPort(0)
                .withRepositories(RepositoryPolicy.ANYTHING), pg.dataSource(), home,
                setup)) {
            GantryClient api = new GantryClient(server.url(),
                    Files.readString(server.tokenFile(TokenKind.ADMIN)).strip());
            await().atMost(Duration.ofSeconds(60)).until(() -> instances(api).size() == 1);
            assertThat(api.post("/api/v2/project", Map.of("name", "app", "repo_url", repository.toString()))
                    .status()).isEqualTo(201);
            PipelineProbe probe = new PipelineProbe(() -> api, "gantry/local/app");
            String pipeline = probe.trigger();

            AtomicInteger most = new AtomicInteger();
            await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(250)).until(() -> {
                List<JsonNode> now = instances(api);
                most.accumulateAndGet(now.size(), Math::max);
                now.forEach(i -> provider.get().process(i.path("id").asText())
                        .ifPresent(p -> agents.put(i.path("id").asText(), p)));
                return List.of("success", "failed").contains(api.get("/api/v2/pipeline/" + pipeline + "/workflow").json()
                        .path("items").path(0).path("status").asText());
            });
            assertThat(probe.awaitWorkflow(pipeline, null, "success").path("status").asText()).isEqualTo("success");
            assertThat(Files.readAllLines(trace)).containsExactlyInAnyOrder("node 0", "node 1", "node 2");
            assertThat(most.get()).as("three 2-vCPU nodes need the cluster's maximum of three small instances")
                    .isEqualTo(3);
            List<JsonNode> events = events(api);
            assertThat(events).anySatisfy(e -> {
                assertThat(e.path("kind").asText()).isEqualTo("insufficient_capacity");
                assertThat(e.path("type").asText()).isEqualTo("big");
            });
            assertThat(events).filteredOn(e -> e.path("kind").asText().equals("launched"))
                    .allSatisfy(e -> assertThat(e.path("type").asText()).isEqualTo("small"));

            await().atMost(Duration.ofSeconds(60)).until(() -> instances(api).size() == 1);
            assertThat(events(api)).filteredOn(e -> e.path("kind").asText().equals("terminated")).hasSize(2);
            assertThat(agents).as("an agent process per instance").hasSize(3);
            await().atMost(Duration.ofSeconds(30)).until(() -> alive(agents) == 1);
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> alive(agents) == 0);
    }

    private static long alive(Map<String, ProcessHandle> agents) {
        return agents.values().stream().filter(ProcessHandle::isAlive).count();
    }

    private static List<JsonNode> instances(GantryClient api) {
        List<JsonNode> instances = new ArrayList<>();
        api.get("/api/v2/insights/fleet").json().path("instances").forEach(instances::add);
        return instances;
    }

    private static List<JsonNode> events(GantryClient api) {
        List<JsonNode> events = new ArrayList<>();
        api.get("/api/v2/insights/fleet").json().path("events").forEach(events::add);
        return events;
    }
}
