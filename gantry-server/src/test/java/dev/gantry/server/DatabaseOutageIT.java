package dev.gantry.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.gantry.db.Database;
import dev.gantry.db.DatabaseSettings;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * With the database gone, the server answers 503 with Retry-After at once and accepts nothing it could not store;
 * once the database is back, the same trigger goes through, numbered as if the outage never happened. The health
 * check a load balancer calls says the same.
 */
class DatabaseOutageIT {
    @RegisterExtension
    static final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension();

    /** Gantry's pool settings with a short borrow timeout, so a request gives up quickly while the database is away. */
    private static final Duration BORROW_TIMEOUT = Duration.ofMillis(500);

    @TempDir
    static Path home;

    static HikariDataSource pool;
    static TestServer server;

    @BeforeAll
    static void start() {
        HikariConfig config = Database.poolConfig(pg.url(), DatabaseSettings.builder().poolSize(8)
                .connectTimeout(BORROW_TIMEOUT).socketTimeout(Duration.ofSeconds(2)).build());
        config.setPoolName("outage");
        config.setMinimumIdle(0);
        config.setConnectionInitSql("SET TIME ZONE '" + EmbeddedPostgresExtension.SESSION_TIME_ZONE.getId() + "'");
        pool = new HikariDataSource(config);
        // The test counts the plan message; a plan builder would take it (and try to clone from GitHub).
        server = TestServer.startWithoutPlanBuilder(pool, home);
    }

    @AfterAll
    static void stop() {
        pg.startServer();
        server.close();
        pool.close();
    }

    @Test
    void while_the_database_is_down_requests_get_503_with_retry_after_and_a_retried_trigger_succeeds_after() {
        server.createProject("acme", "app");
        String trigger = "/api/v2/project/gantry/acme/app/pipeline";
        ApiClient api = server.api();

        pg.stopServer();
        ApiClient.Answer refusedTrigger;
        ApiClient.Answer refusedRead;
        ApiClient.Answer refusedQueueLook;
        ApiClient.Answer unhealthy;
        long refusedWithinMillis;
        try {
            long start = System.nanoTime();
            refusedTrigger = api.post(trigger, "{\"branch\": \"main\"}", "Idempotency-Key", "outage-1");
            refusedWithinMillis = (System.nanoTime() - start) / 1_000_000;
            refusedRead = api.get("/api/v2/project/gantry/acme/app");
            refusedQueueLook = api.get("/api/v2/admin/queues");
            unhealthy = api.anonymous().get("/healthz");
        } finally {
            pg.startServer();
        }

        assertThat(refusedTrigger.status()).as(refusedTrigger.body()).isEqualTo(503);
        assertThat(refusedTrigger.header("Retry-After")).isEqualTo("5");
        assertThat(refusedTrigger.text("message")).contains("retry after 5 seconds");
        assertThat(refusedWithinMillis).as("time to refuse, ms").isLessThan(5_000);
        assertThat(refusedRead.status()).isEqualTo(503);
        assertThat(refusedRead.header("Retry-After")).isEqualTo("5");
        assertThat(refusedQueueLook.status()).as(refusedQueueLook.body()).isEqualTo(503);
        assertThat(refusedQueueLook.header("Retry-After")).isNotNull();
        assertThat(unhealthy.status()).as("a load balancer's health check, with no token").isEqualTo(503);

        // As a client honouring Retry-After does: the pool may first hand out a connection the outage broke.
        ApiClient.Answer[] answer = new ApiClient.Answer[1];
        await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(500)).until(() -> {
            answer[0] = api.post(trigger, "{\"branch\": \"main\"}", "Idempotency-Key", "outage-1");
            return answer[0].status() != 503;
        });
        ApiClient.Answer retried = answer[0];
        ApiClient.Answer healthy = api.anonymous().get("/healthz");
        assertThat(healthy.status()).as(healthy.body()).isEqualTo(200);
        assertThat(healthy.text("status")).isEqualTo("ok");

        assertThat(retried.status()).as(retried.body()).isEqualTo(201);
        assertThat(retried.json().get("number").asLong()).isEqualTo(1);
        assertThat(server.count("gantry.pipeline")).isOne();
        assertThat(server.count("gantry_queue.message")).isOne();
        // An operator sees the outage in the pool's meters: requests that timed out waiting for a connection.
        assertThat(api.get("/metrics").body())
                .containsPattern("\nhikaricp_connections_timeout_total\\{pool=\"outage\"} [1-9]");
    }
}
