package dev.gantry.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gantry.notify.DestinationGuard;
import dev.gantry.notify.webhook.WebhookSignature;
import dev.gantry.queue.QueueSettings;
import dev.gantry.queue.Queues;
import dev.gantry.resilience.Backoff;
import dev.gantry.server.http.ExternalUrl;
import dev.gantry.server.http.Json;
import dev.gantry.server.notify.DeliveryQueue;
import dev.gantry.server.notify.EventOutbox;
import dev.gantry.server.notify.FakeEndpoint;
import dev.gantry.server.notify.NotifySettings;
import dev.gantry.server.project.RepositoryPolicy;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.sqlobject.SqlObjectPlugin;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Project webhooks end to end (docs/notifications.md): made through CircleCI's webhook API, told of completions in
 * CircleCI's payload shape with its signature, once per event and destination whatever transactions are retried and
 * servers restarted, retried until the window closes and then dead, and sent again on request. The receiver is a
 * real HTTP server on 127.0.0.1.
 */
class OutboundWebhooksIT {
    @RegisterExtension
    final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension(12);
    @TempDir
    Path home;

    TestServer server;
    FakeEndpoint endpoint;
    RunFixtures runs;

    /** Short retries, and a guard that lets every retry through, so the window, not the guard, ends a delivery. */
    static ServerSettings settings() {
        return new ServerSettings(0).withRepositories(RepositoryPolicy.ANYTHING).withNotifications(
                NotifySettings.defaults().withRetries(new Backoff(Duration.ofMillis(100), Duration.ofMillis(400)),
                        Duration.ofSeconds(3)).withGuard(new DestinationGuard.Settings(16, 4, 12, 1.0, 100, 100,
                        Duration.ofSeconds(30), Duration.ofMillis(200))));
    }

    @BeforeEach
    void start() throws Exception {
        server = TestServer.start(pg.dataSource(), home, settings());
        endpoint = new FakeEndpoint(FakeEndpoint.Mode.OK);
        runs = new RunFixtures(server.jdbi());
    }

    @AfterEach
    void stop() {
        server.close();
        endpoint.close();
    }

    String createWebhook(String events) {
        ApiClient.Answer created = server.api().post("/api/v2/webhook", """
                {"name": "ci-dashboard", "events": %s, "url": "%s", "verify-tls": true,
                 "signing-secret": "s3cret-s3cret", "scope": {"id": "%s", "type": "project"}}"""
                .formatted(events, endpoint.url("/hook"), runs.projectId));
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        return created.text("id");
    }

    @Test
    void a_canceled_workflow_is_told_to_its_webhook_signed_in_circlecis_shape_and_logged() {
        String webhook = createWebhook("[\"workflow-completed\", \"job-completed\"]");
        UUID workflow = runs.workflow("build-test");
        UUID job = runs.job(workflow, "test").insert();

        assertThat(server.api().post("/api/v2/workflow/" + workflow + "/cancel", "{}").status()).isEqualTo(202);

        await().atMost(Duration.ofSeconds(10)).until(() -> endpoint.accepted().size() == 2);
        FakeEndpoint.Received workflowEvent = endpoint.accepted().stream()
                .filter(r -> "workflow-completed".equals(r.header("circleci-event-type"))).findFirst().orElseThrow();
        assertThat(WebhookSignature.verify("s3cret-s3cret", workflowEvent.body(),
                workflowEvent.header("circleci-signature"))).isTrue();
        assertThat(workflowEvent.header("User-Agent")).isEqualTo("Gantry-Webhook/1.0");
        JsonNode body = json(workflowEvent.body());
        assertThat(body.path("id").asText()).isEqualTo(workflowEvent.header("gantry-delivery-id"));
        assertThat(body.path("type").asText()).isEqualTo("workflow-completed");
        assertThat(body.path("webhook").path("id").asText()).isEqualTo(webhook);
        assertThat(body.path("project").path("slug").asText()).isEqualTo("gantry/acme/app");
        assertThat(body.path("organization").path("name").asText()).isEqualTo("acme");
        assertThat(body.path("workflow").path("id").asText()).isEqualTo(workflow.toString());
        assertThat(body.path("workflow").path("status").asText()).isEqualTo("canceled");
        assertThat(body.path("workflow").path("url").asText()).endsWith("/pipelines/gantry/acme/app/1");
        assertThat(body.path("pipeline").path("number").asLong()).isEqualTo(1);
        assertThat(body.path("pipeline").path("vcs").path("branch").asText()).isEqualTo("main");
        JsonNode jobEvent = json(endpoint.accepted().stream()
                .filter(r -> "job-completed".equals(r.header("circleci-event-type"))).findFirst().orElseThrow()
                .body());
        assertThat(jobEvent.path("job").path("id").asText()).isEqualTo(job.toString());
        assertThat(jobEvent.path("job").path("status").asText()).isEqualTo("canceled");

        JsonNode log = server.api().get("/api/v2/webhook/" + webhook + "/deliveries").json().path("items");
        assertThat(log).hasSize(2);
        for (JsonNode delivery : log) {
            assertThat(delivery.path("state").asText()).isEqualTo("delivered");
            assertThat(delivery.path("attempts").get(0).path("status_code").asInt()).isEqualTo(200);
            assertThat(delivery.path("attempts").get(0).has("duration_ms")).isTrue();
        }
        JsonNode shown = server.api().get("/api/v2/webhook/" + webhook).json();
        assertThat(shown.path("verify-tls").asBoolean()).isTrue();
        assertThat(shown.has("signing-secret")).as("never shown").isFalse();
        assertThat(server.api().get("/api/v2/webhook?scope-id=" + runs.projectId + "&scope-type=project").json()
                .path("items")).hasSize(1);

        ApiClient.Answer renamed = server.api().put("/api/v2/webhook/" + webhook,
                "{\"name\": \"renamed\", \"events\": [\"job-completed\"]}");
        assertThat(renamed.status()).as(renamed.body()).isEqualTo(200);
        assertThat(renamed.text("name")).isEqualTo("renamed");
        assertThat(renamed.json().path("url").asText()).isEqualTo(endpoint.url("/hook").toString());
        assertThat(server.api().delete("/api/v2/webhook/" + webhook).status()).isEqualTo(200);
        assertThat(server.api().get("/api/v2/webhook/" + webhook).status()).isEqualTo(404);
    }

    @Test
    void an_event_is_delivered_once_per_destination_across_a_retried_transaction_and_a_server_restart() {
        createWebhook("[\"workflow-completed\"]");
        UUID workflow = runs.workflow("build");
        Jdbi reporting = Jdbi.create(pg.dataSource()).installPlugin(new SqlObjectPlugin());
        try (Queues queues = Queues.start(pg.dataSource(), QueueSettings.defaults())) {
            EventOutbox.install(reporting, DeliveryQueue.onMain(queues), ExternalUrl.configured(URI.create("https://ci.example")));
            server.close(); // the events are reported while no server delivers
            OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
            try {
                reporting.useTransaction(h -> {
                    EventOutbox.workflowCompleted(h, workflow, now);
                    throw new IllegalStateException("the transaction fails after reporting, and is retried");
                });
            } catch (IllegalStateException expected) {
                // rolled back: nothing of it remains
            }
            reporting.useTransaction(h -> EventOutbox.workflowCompleted(h, workflow, now));
            reporting.useTransaction(h -> EventOutbox.workflowCompleted(h, workflow, now)); // a repeated one
        }

        server = TestServer.start(pg.dataSource(), home, settings());
        await().atMost(Duration.ofSeconds(10)).until(() -> endpoint.accepted().size() >= 1);
        server.close();
        server = TestServer.start(pg.dataSource(), home, settings());
        sleep(Duration.ofSeconds(2));

        assertThat(endpoint.accepted()).hasSize(1);
        assertThat(server.count("gantry.notify_event")).isEqualTo(1);
        assertThat(server.count("gantry.notify_delivery")).isEqualTo(1);
    }

    @Test
    void a_failing_endpoint_is_retried_until_the_window_closes_then_the_delivery_is_dead_and_can_be_redelivered() {
        String webhook = createWebhook("[\"workflow-completed\"]");
        endpoint.mode(FakeEndpoint.Mode.FAIL);
        UUID workflow = runs.workflow("build");
        server.api().post("/api/v2/workflow/" + workflow + "/cancel", "{}");

        await().atMost(Duration.ofSeconds(15)).until(() -> deliveries(webhook).get(0).path("state").asText()
                .equals("dead"));
        JsonNode dead = deliveries(webhook).get(0);
        assertThat(dead.path("dead_reason").asText()).startsWith("gave up after").contains("HTTP 500");
        assertThat(dead.path("attempt_count").asInt()).isGreaterThanOrEqualTo(3).isEqualTo(endpoint.calls());
        assertThat(dead.path("attempts").findValuesAsText("status_code")).containsOnly("500");

        endpoint.mode(FakeEndpoint.Mode.OK);
        ApiClient.Answer redelivered = server.api().post("/api/v2/webhook/" + webhook + "/deliveries/"
                + dead.path("id").asText() + "/redeliver", "{}");
        assertThat(redelivered.status()).isEqualTo(202);
        await().atMost(Duration.ofSeconds(10)).until(() -> deliveries(webhook).get(0).path("state").asText()
                .equals("delivered"));
        assertThat(endpoint.accepted()).hasSize(1);
        assertThat(json(endpoint.accepted().getFirst().body()).path("id").asText()).isEqualTo(dead.path("id")
                .asText());
        assertThat(server.api().post("/api/v2/webhook/" + webhook + "/deliveries/" + UUID.randomUUID()
                + "/redeliver", "{}").status()).isEqualTo(404);
    }

    @Test
    void a_hanging_or_resetting_endpoint_is_logged_with_its_error_and_does_not_hold_the_delivery() {
        String webhook = createWebhook("[\"workflow-completed\"]");
        endpoint.mode(FakeEndpoint.Mode.RESET);
        server.api().post("/api/v2/workflow/" + runs.workflow("build") + "/cancel", "{}");

        await().atMost(Duration.ofSeconds(10)).until(() -> !deliveries(webhook).get(0).path("attempts").isEmpty());
        assertThat(deliveries(webhook).get(0).path("attempts").get(0).path("error").asText())
                .contains("connection");
        endpoint.mode(FakeEndpoint.Mode.OK);
        await().atMost(Duration.ofSeconds(10)).until(() -> deliveries(webhook).get(0).path("state").asText()
                .equals("delivered"));
    }

    @Test
    void bad_input_is_a_json_error_naming_the_field_and_private_addresses_need_the_admin_setting() {
        String project = runs.projectId.toString();
        ApiClient api = server.api();
        assertThat(api.post("/api/v2/webhook", """
                {"name": "x", "events": ["build-started"], "url": "https://hooks.example/", "verify-tls": true,
                 "signing-secret": "k", "scope": {"id": "%s", "type": "project"}}""".formatted(project)).json()
                .path("message").asText()).contains("build-started");
        assertThat(api.post("/api/v2/webhook", """
                {"name": "x", "events": ["budget-alert"], "url": "https://hooks.example/", "verify-tls": true,
                 "signing-secret": "k", "scope": {"id": "%s", "type": "project"}}""".formatted(project)).text("field"))
                .as("Gantry's own events are not CircleCI's webhook events").isEqualTo("events");
        assertThat(api.post("/api/v2/webhook", """
                {"name": "x", "events": ["job-completed"], "url": "ftp://hooks.example/", "verify-tls": true,
                 "signing-secret": "k", "scope": {"id": "%s", "type": "project"}}""".formatted(project)).status())
                .isEqualTo(400);
        assertThat(api.post("/api/v2/webhook", """
                {"name": "x", "events": ["job-completed"], "url": "https://hooks.example/", "verify-tls": true,
                 "signing-secret": "k", "scope": {"id": "%s", "type": "project"}}"""
                .formatted(UUID.randomUUID())).status()).isEqualTo(404);
        assertThat(api.post("/api/v2/webhook", "{\"name\": \"x\"}").status()).isEqualTo(400);
        assertThat(api.get("/api/v2/webhook").status()).isEqualTo(400);
        assertThat(api.get("/api/v2/webhook/not-an-id").status()).isEqualTo(400);
        assertThat(api.get("/api/v2/webhook/" + UUID.randomUUID()).status()).isEqualTo(404);

        server.close();
        server = TestServer.start(pg.dataSource(), home, settings().withRepositories(RepositoryPolicy.PUBLIC_ONLY));
        for (String url : List.of(endpoint.url("/hook").toString(), "http://169.254.169.254/latest",
                "https://10.1.2.3/", "http://localhost:8080/")) {
            ApiClient.Answer refused = server.api().post("/api/v2/webhook", """
                    {"name": "x", "events": ["job-completed"], "url": "%s", "verify-tls": true,
                     "signing-secret": "k", "scope": {"id": "%s", "type": "project"}}""".formatted(url, project));
            assertThat(refused.status()).as(url).isEqualTo(400);
            assertThat(refused.text("message")).contains("--allow-private-networks");
        }
    }

    private JsonNode deliveries(String webhook) {
        return server.api().get("/api/v2/webhook/" + webhook + "/deliveries").json().path("items");
    }

    private static JsonNode json(byte[] body) {
        try {
            return Json.MAPPER.readTree(new String(body, StandardCharsets.UTF_8));
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
