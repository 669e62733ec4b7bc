package dev.gantry.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gantry.server.agent.AgentSettings;
import dev.gantry.server.auth.TokenKind;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code GET /api/v2/insights/queue}: per class, what is pending and why (as the scheduler decides now), and the
 * waits of the tasks that started or still wait, per window.
 */
class QueueInsightsIT {
    @RegisterExtension
    static final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension();

    @TempDir
    static Path home;

    static TestServer server;

    @BeforeAll
    static void start() {
        // A claim that finds nothing answers 204 after the poll timeout: 2 s (a re-check included), not 25.
        server = TestServer.start(pg.dataSource(), home, new ServerSettings(0, AgentSettings.defaults()
                .withPollTimeout(Duration.ofSeconds(2))));
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @BeforeEach
    void clean() {
        pg.truncate("gantry.project", "gantry.agent", "gantry.pool_pause", "gantry_queue.message");
    }

    @Test
    void each_class_shows_its_pending_tasks_their_reasons_and_the_waits_per_window() {
        RunFixtures runs = new RunFixtures(server.jdbi());
        UUID workflow = runs.workflow("main");
        UUID first = runs.job(workflow, "a").insert();
        runs.job(workflow, "b").insert();
        runs.job(workflow, "c").resourceClass("large", 4, 8192).insert();
        runs.job(workflow, "d").resourceClass("xlarge", 8, 16384).insert();
        AgentClient agent = new AgentClient(server.api().anonymous(), server.token(TokenKind.AGENT));
        String agentId = agent.registered("box", 4, 8192);
        assertThat(AgentClient.claimed(agent.claim(agentId, 4, 8192)).jobId()).isEqualTo(first);

        ApiClient.Answer answer = server.api().get("/api/v2/insights/queue");
        assertThat(answer.status()).as(answer.body()).isEqualTo(200);
        JsonNode insights = answer.json();

        assertThat(insights.get("generated_at").asText()).endsWith("Z");
        List<String> classes = new ArrayList<>();
        insights.get("items").forEach(c -> classes.add(c.get("resource_class").asText()));
        assertThat(classes).containsExactly("large", "medium", "xlarge");
        JsonNode medium = insights.get("items").get(1);
        assertThat(medium.get("pending").asLong()).isEqualTo(1);
        assertThat(medium.get("reasons").toString()).isEqualTo("{\"starting\":1}");
        assertThat(fieldNames(medium.get("waits"))).containsExactly("last_15m", "last_1h", "last_24h");
        JsonNode recent = medium.at("/waits/last_15m");
        assertThat(recent.get("jobs").asLong()).as("one started, one still waiting").isEqualTo(2);
        assertThat(recent.get("p50_ms").asLong()).isPositive();
        assertThat(recent.get("max_ms").asLong()).isGreaterThanOrEqualTo(recent.get("p95_ms").asLong());
        JsonNode large = insights.get("items").get(0);
        assertThat(large.get("reasons").toString()).isEqualTo("{\"no_capacity\":1}");
        JsonNode xlarge = insights.get("items").get(2);
        assertThat(xlarge.get("reasons").toString()).isEqualTo("{\"no_instance_large_enough\":1}");
    }

    @Test
    void a_paused_pool_dispatches_nothing_its_jobs_say_why_and_a_resume_lets_them_start() {
        RunFixtures runs = new RunFixtures(server.jdbi());
        UUID workflow = runs.workflow("main");
        UUID job = runs.job(workflow, "a").insert();
        AgentClient agent = new AgentClient(server.api().anonymous(), server.token(TokenKind.AGENT));
        String agentId = agent.registered("box");

        ApiClient.Answer paused = server.api().post("/api/v2/fleet/pools/default/pause",
                "{\"reason\": \"provider maintenance\"}");
        assertThat(paused.status()).as(paused.body()).isEqualTo(200);
        assertThat(paused.json().get("reason").asText()).isEqualTo("provider maintenance");
        assertThat(server.api().post("/api/v2/fleet/pools/Bad_Pool/pause", "{}").status()).isEqualTo(400);

        assertThat(agent.claim(agentId, 64, 1 << 20).status()).as("nothing starts in a paused pool").isEqualTo(204);
        JsonNode waiting = server.api().get("/api/v2/project/gantry/acme/app/job/" + runs.number(job)).json()
                .get("waiting");
        assertThat(waiting.get("reason").asText()).isEqualTo("queue_paused");
        assertThat(waiting.get("message").asText()).contains("pool default is paused", "provider maintenance");
        JsonNode medium = server.api().get("/api/v2/insights/queue").json().get("items").get(0);
        assertThat(medium.get("reasons").toString()).isEqualTo("{\"queue_paused\":1}");
        assertThat(server.api().get("/api/v2/insights/fleet").json().at("/paused_pools/0/pool").asText())
                .isEqualTo("default");

        assertThat(server.api().post("/api/v2/fleet/pools/default/resume", "").status()).isEqualTo(200);
        assertThat(AgentClient.claimed(agent.claim(agentId, 64, 1 << 20)).jobId()).isEqualTo(job);
    }

    private static List<String> fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
