package dev.gantry.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gantry.queue.MessageState;
import dev.gantry.queue.NewMessage;
import dev.gantry.queue.QueueSettings;
import dev.gantry.queue.Queues;
import dev.gantry.server.auth.TokenKind;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * What an operator sees of the durable queues on a running server: {@code /api/v2/admin} (depths, dead letters,
 * replay, pause, limits and a ramped resume) and {@code GET /metrics}.
 */
class QueueAdminIT {
    @RegisterExtension
    static final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension();

    @TempDir
    static Path home;

    static TestServer server;

    @BeforeAll
    static void start() {
        // Without the plan builder a trigger's plan message stays ready, so its depth is known.
        server = TestServer.startWithoutPlanBuilder(pg.dataSource(), home);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static Queues queues() {
        return Queues.start(pg.dataSource(), QueueSettings.defaults(), new SimpleMeterRegistry());
    }

    @Test
    void dead_messages_are_listed_with_their_reasons_and_replayed_once() {
        long dead;
        try (Queues queues = queues()) {
            dead = queues.enqueue(NewMessage.to("hooks").maxAttempts(1).payload("{\"hook\": 7}")).id();
            queues.fail(queues.claim("hooks", "w", 1).get(0), "webhook answered 410", false);
            queues.enqueue(NewMessage.to("hooks").payload("waiting"));
        }

        JsonNode list = ok(server.api().get("/api/v2/admin/queues"));
        JsonNode hooks = item(list, "hooks");
        assertThat(hooks.get("ready").asLong()).isEqualTo(1);
        assertThat(hooks.get("dead").asLong()).isEqualTo(1);
        assertThat(hooks.get("paused").asBoolean()).isFalse();
        assertThat(hooks.get("max_running").isNull()).isTrue();
        assertThat(list.at("/database/commit_latency_ms").asDouble()).isNotNaN().isPositive();
        assertThat(list.at("/database/live_epochs").size()).isPositive();

        JsonNode deadOnes = ok(server.api().get("/api/v2/admin/queues/hooks/dead")).get("items");
        assertThat(deadOnes).hasSize(1);
        assertThat(deadOnes.get(0).get("id").asLong()).isEqualTo(dead);
        assertThat(deadOnes.get(0).get("reason").asText()).isEqualTo("webhook answered 410");
        assertThat(deadOnes.get(0).get("payload").asText()).isEqualTo("{\"hook\": 7}");
        assertThat(deadOnes.get(0).get("attempts").asInt()).isEqualTo(1);
        assertThat(deadOnes.get(0).get("died_at").asText()).endsWith("Z");

        JsonNode replayed = ok(server.api().post("/api/v2/admin/messages/" + dead + "/replay", ""));
        assertThat(replayed.get("state").asText()).isEqualTo("ready");
        try (Queues queues = queues()) {
            assertThat(queues.state(dead)).contains(MessageState.READY);
        }
        ApiClient.Answer again = server.api().post("/api/v2/admin/messages/" + dead + "/replay", "");
        assertThat(again.status()).isEqualTo(409);
        assertThat(again.text("message")).isEqualTo("message " + dead + " is ready, not dead");
        assertThat(server.api().post("/api/v2/admin/messages/999999999/replay", "").status()).isEqualTo(404);
        assertThat(server.api().post("/api/v2/admin/messages/seven/replay", "").text("field")).isEqualTo("id");
        assertThat(ok(server.api().get("/api/v2/admin/queues/hooks/dead?limit=5")).get("items")).isEmpty();
        assertThat(server.api().get("/api/v2/admin/queues/hooks/dead?limit=0").text("field")).isEqualTo("limit");
        assertThat(server.api().get("/api/v2/admin/queues/No_Such/dead").text("field")).isEqualTo("queue");
    }

    @Test
    void a_paused_queue_holds_its_messages_and_a_ramped_resume_lets_them_in_gradually() {
        try (Queues queues = queues()) {
            for (int i = 0; i < 10; i++) {
                queues.enqueue(NewMessage.to("mail"));
            }
            JsonNode paused = ok(server.api().post("/api/v2/admin/queues/mail/pause", ""));
            assertThat(paused.get("paused").asBoolean()).isTrue();
            assertThat(paused.get("ready").asLong()).isEqualTo(10);
            assertThat(queues.claim("mail", "w", 10)).as("nothing is claimed while paused").isEmpty();
            assertThat(item(ok(server.api().get("/api/v2/admin/queues")), "mail").get("paused").asBoolean())
                    .isTrue();

            ApiClient.Answer noLimits = server.api().post("/api/v2/admin/queues/mail/resume",
                    "{\"ramp\": {\"from\": 0.25, \"over_seconds\": 600}}");
            assertThat(noLimits.status()).as(noLimits.body()).isEqualTo(409);
            assertThat(noLimits.text("message")).contains("no limits for a ramp to scale");
            assertThat(server.api().post("/api/v2/admin/queues/mail/resume", "{\"ramp\": {\"from\": 0}}")
                    .text("field")).isEqualTo("ramp");
            assertThat(put("/api/v2/admin/queues/mail/limits", "{\"max_running\": 0}").text("field"))
                    .isEqualTo("max_running");
            assertThat(put("/api/v2/admin/queues/mail/limits", "{\"max_per_second\": \"fast\"}").text("field"))
                    .isEqualTo("max_per_second");

            JsonNode limited = ok(put("/api/v2/admin/queues/mail/limits", "{\"max_running\": 4}"));
            assertThat(limited.get("max_running").asInt()).isEqualTo(4);
            assertThat(limited.get("max_per_second").isNull()).isTrue();
            assertThat(limited.get("paused").asBoolean()).as("limits leave a pause alone").isTrue();
            JsonNode resumed = ok(server.api().post("/api/v2/admin/queues/mail/resume",
                    "{\"ramp\": {\"from\": 0.25, \"over_seconds\": 600}}"));
            assertThat(resumed.get("paused").asBoolean()).isFalse();
            assertThat(resumed.at("/ramp/from").asDouble()).isEqualTo(0.25);
            assertThat(resumed.at("/ramp/over_seconds").asLong()).isEqualTo(600);
            assertThat(resumed.at("/ramp/resumed_at").asText()).endsWith("Z");
        }
        try (Queues fresh = queues()) {
            assertThat(fresh.claim("mail", "w", 10)).as("a quarter of 4 running at first").hasSize(1);
        }
    }

    @Test
    void the_queue_http_pool_and_jvm_meters_are_scraped_with_the_admin_token_as_bearer() {
        server.createProject("acme", "app");
        assertThat(server.api().post("/api/v2/project/gantry/acme/app/pipeline", "{\"branch\": \"main\"}").status())
                .isEqualTo(201);
        assertThat(server.api().get("/api/v2/no/such/route/17").status()).isEqualTo(404);
        System.gc();

        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(scrape())
                .contains("gantry_queue_messages_total{event=\"enqueued\",queue=\"pipeline-plan\"} 1.0")
                .contains("gantry_queue_depth{queue=\"pipeline-plan\",state=\"ready\"} 1.0")
                .containsPattern("\ngantry_queue_db_commit_latency_seconds [0-9]")
                .containsPattern("\ngantry_queue_db_wal_bytes_per_second [0-9]")
                .containsPattern("\nhttp_server_requests_seconds_count\\{method=\"POST\",status=\"201\","
                        + "uri=\"/api/v2/project/\\{vcs}/\\{org}/\\{name}/pipeline\"} 1(\\.0)?\n")
                .containsPattern("\nhttp_server_requests_seconds_count\\{method=\"GET\",status=\"404\","
                        + "uri=\"NOT_FOUND\"} 1(\\.0)?\n")
                .containsPattern("\nhikaricp_connections_pending\\{pool=\"[^\"]+\"} 0")
                .contains("hikaricp_connections_timeout_total{")
                .contains("jvm_memory_used_bytes{")
                .contains("jvm_gc_pause_seconds_count{"));

        assertThat(server.api().anonymous().get("/metrics").status()).isEqualTo(401);
    }

    private static String scrape() {
        ApiClient.Answer scraped = server.api().anonymous().get("/metrics",
                "Authorization", "Bearer " + server.token(TokenKind.ADMIN));
        assertThat(scraped.status()).as(scraped.body()).isEqualTo(200);
        assertThat(scraped.header("Content-Type")).startsWith("text/plain; version=0.0.4");
        return scraped.body();
    }

    private static ApiClient.Answer put(String path, String json) {
        return server.api().send("PUT", path, HttpRequest.BodyPublishers.ofString(json),
                "Content-Type", "application/json");
    }

    private static JsonNode ok(ApiClient.Answer answer) {
        assertThat(answer.status()).as(answer.body()).isEqualTo(200);
        return answer.json();
    }

    private static JsonNode item(JsonNode list, String queue) {
        for (JsonNode item : list.get("items")) {
            if (item.get("queue").asText().equals(queue)) {
                return item;
            }
        }
        throw new AssertionError("no queue " + queue + " in " + list);
    }
}
