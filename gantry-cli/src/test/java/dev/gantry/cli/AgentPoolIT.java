package dev.gantry.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gantry.cli.client.GantryClient;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * API requests cannot starve the agents: with every connection of the server's API pool held by triggers waiting on
 * a project row another session locked, agents still register (and so claim, heartbeat and complete) at once on
 * their own pool, and the waiting triggers end within the request lock timeout instead of holding the pool.
 */
class AgentPoolIT {
    private static final int WAITING_TRIGGERS = 24; // more than the API pool's 10 connections

    @RegisterExtension
    final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension(4);

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path home;

    GantryProcesses gantry;

    @BeforeEach
    void start() {
        gantry = new GantryProcesses(home.resolve("gantry"), pg.jdbcUrl(), Map.of());
        gantry.startServer();
        assertThat(gantry.admin().post("/api/v2/project", Map.of("name", "app", "repo_url",
                home.toString())).status()).isEqualTo(201);
    }

    @AfterEach
    void stop() {
        gantry.close();
    }

    @Test
    void agents_register_at_once_while_triggers_wait_on_a_locked_project_with_every_api_connection()
            throws Exception {
        GantryClient admin = gantry.admin();
        String agentToken = Files.readString(home.resolve("gantry/agent-token")).strip();
        HttpClient http = HttpClient.newHttpClient();
        List<Long> registerMillis = new ArrayList<>();
        List<Integer> triggerStatuses = new ArrayList<>();
        long triggersMillis;
        try (Connection holder = pg.dataSource().getConnection();
             ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            holder.setAutoCommit(false);
            holder.createStatement().execute("SELECT 1 FROM gantry.project FOR UPDATE");

            long started = System.nanoTime();
            List<Future<Integer>> triggers = new ArrayList<>();
            for (int i = 0; i < WAITING_TRIGGERS; i++) {
                triggers.add(clients.submit(() -> admin.post("/api/v2/project/gantry/local/app/pipeline",
                        Map.of("branch", "main")).status()));
            }
            Thread.sleep(1_000); // every API connection is now waiting on the lock
            for (int i = 0; i < 5; i++) {
                long t = System.nanoTime();
                HttpResponse<String> registered = http.send(HttpRequest.newBuilder(
                                URI.create(gantry.url() + "/api/agent/v1/register"))
                        .header("Authorization", "Bearer " + agentToken).header("Content-Type", "application/json")
                        .timeout(Duration.ofSeconds(30))
                        .POST(HttpRequest.BodyPublishers.ofString("{\"name\": \"probe-" + i + "\", \"cpu\": 1, "
                                + "\"memory_mb\": 1024}")).build(), HttpResponse.BodyHandlers.ofString());
                registerMillis.add((System.nanoTime() - t) / 1_000_000);
                assertThat(registered.statusCode()).as(registered.body()).isEqualTo(201);
            }
            for (Future<Integer> trigger : triggers) {
                triggerStatuses.add(trigger.get());
            }
            triggersMillis = (System.nanoTime() - started) / 1_000_000;
            holder.rollback();
        }

        assertThat(registerMillis).as("agent registrations, ms").allSatisfy(ms -> assertThat(ms).isLessThan(2_000));
        assertThat(triggerStatuses).as("a trigger that waited its lock timeout (or for a connection) is told to "
                + "come back").hasSize(WAITING_TRIGGERS).containsOnly(503);
        assertThat(triggersMillis).as("all triggers answered, ms").isLessThan(30_000);
        assertThat(admin.post("/api/v2/project/gantry/local/app/pipeline", Map.of("branch", "main")).status())
                .as("once the lock is gone").isEqualTo(201);
    }
}
