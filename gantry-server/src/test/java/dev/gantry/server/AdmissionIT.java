package dev.gantry.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.gantry.server.admission.AdmissionSettings;
import dev.gantry.server.admission.RateLimiter;
import dev.gantry.server.project.RepositoryPolicy;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Admission control over real HTTP: per-token rate limits, and shedding that never refuses a trigger. */
class AdmissionIT {
    @RegisterExtension
    static final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension(32);

    @TempDir
    Path home;

    @Test
    void a_token_over_its_rate_gets_429_with_retry_after_while_another_token_is_unaffected() {
        // One request every 20 s after a burst of 3: a loaded machine cannot refill the bucket between the calls.
        RateLimiter.Limit tight = new RateLimiter.Limit(0.05, 3);
        try (TestServer server = TestServer.start(pg.dataSource(), home, new ServerSettings(0).withAdmission(
                AdmissionSettings.defaults().withLimits(tight, tight, tight)))) {
            String other = server.api().post("/api/v2/user/admin/token", "{\"label\": \"second\"}").text("token");
            ApiClient second = server.api().withToken(other);

            ApiClient.Answer last = null;
            for (int i = 0; i < 4; i++) {
                last = server.api().get("/api/v2/project");
            }
            assertThat(last.status()).as(last.body()).isEqualTo(429);
            assertThat(last.headers().firstValue("Retry-After")).hasValueSatisfying(
                    seconds -> assertThat(Integer.parseInt(seconds)).isBetween(1, 20));
            assertThat(last.text("message")).contains("too many requests");
            assertThat(second.get("/api/v2/project").status()).isEqualTo(200);
        }
    }

    @Test
    void while_overloaded_reads_are_refused_with_retry_after_and_triggers_are_still_accepted() throws Exception {
        try (TestServer server = TestServer.start(pg.dataSource(), home, new ServerSettings(0)
                .withRepositories(RepositoryPolicy.ANYTHING).withAdmission(AdmissionSettings.defaults()
                        .withShedding(1, AdmissionSettings.DEFAULT_SHED_POOL_WAITERS)))) {
            server.createProject("acme", "locked", home.toString());
            server.createProject("acme", "free", home.toString());
            // A settings change waits on the project's row lock, held here: one request under way is overload.
            try (Connection lock = pg.dataSource().getConnection(); Statement s = lock.createStatement()) {
                lock.setAutoCommit(false);
                s.execute("SELECT 1 FROM gantry.project WHERE name = 'locked' FOR UPDATE");
                CompletableFuture<ApiClient.Answer> waiting = CompletableFuture.supplyAsync(() -> server.api().send(
                        "PATCH", "/api/v2/project/gantry/acme/locked/settings",
                        HttpRequest.BodyPublishers.ofString("{\"advanced\": {\"autocancel_builds\": true}}"),
                        "Content-Type", "application/json"));
                ApiClient.Answer[] refused = new ApiClient.Answer[1];
                await().atMost(Duration.ofSeconds(4)).until(() -> {
                    refused[0] = server.api().get("/api/v2/project");
                    return refused[0].status() == 503;
                });
                assertThat(refused[0].headers().firstValue("Retry-After")).hasValue("2");
                assertThat(refused[0].text("message")).contains("overloaded");

                ApiClient.Answer trigger = server.api().post("/api/v2/project/gantry/acme/free/pipeline",
                        "{\"branch\": \"main\"}");
                assertThat(trigger.status()).as(trigger.body()).isEqualTo(201);
                lock.rollback();
                assertThat(waiting.get().status()).isEqualTo(200);
            }
            assertThat(server.api().get("/api/v2/project").status()).isEqualTo(200);
        }
    }
}
