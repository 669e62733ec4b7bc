package dev.gantry.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gantry.server.auth.TokenKind;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** {@code GET /metrics}: the queue's and the JVM's meters in Prometheus's text format, behind the admin token. */
class MetricsEndpointIT {
    @RegisterExtension
    static final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension();

    @TempDir
    static Path home;

    static TestServer server;

    @BeforeAll
    static void start() {
        // Without the plan builder the trigger's plan message stays ready, so its depth is known.
        server = TestServer.startWithoutPlanBuilder(pg.dataSource(), home);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void the_queue_and_jvm_meters_are_scraped_with_the_admin_token_as_bearer() {
        server.createProject("acme", "app");
        assertThat(server.api().post("/api/v2/project/gantry/acme/app/pipeline", "{\"branch\": \"main\"}").status())
                .isEqualTo(201);

        ApiClient.Answer scraped = server.api().anonymous().get("/metrics",
                "Authorization", "Bearer " + server.token(TokenKind.ADMIN));
        assertThat(scraped.status()).as(scraped.body()).isEqualTo(200);
        assertThat(scraped.header("Content-Type")).startsWith("text/plain; version=0.0.4");
        assertThat(scraped.body())
                .contains("gantry_queue_messages_total{event=\"enqueued\",queue=\"pipeline-plan\"} 1.0")
                .contains("gantry_queue_depth{queue=\"pipeline-plan\",state=\"ready\"} 1.0")
                .containsPattern("\ngantry_queue_db_commit_latency_seconds [0-9]")
                .containsPattern("\ngantry_queue_db_wal_bytes_per_second [0-9]")
                .contains("jvm_memory_used_bytes{");

        assertThat(server.api().anonymous().get("/metrics").status()).isEqualTo(401);
    }
}
