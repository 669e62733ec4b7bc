package dev.gantry.notify.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gantry.notify.Event;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class WebhookPayloadTest {
    static final UUID WORKFLOW = UUID.fromString("fda08377-fe7e-46b1-8992-3a7aaecac9c3");

    static Event.Snapshot snapshot(Event.Job job) {
        return new Event.Snapshot(
                new Event.Project(UUID.fromString("84996744-a854-4f5e-aea3-04e2851dc1d2"), "app", "gantry/acme/app"),
                new Event.Organization(UUID.fromString("f22b6566-597d-46d5-ba74-99ef5bb3d85c"), "acme"),
                new Event.Workflow(WORKFLOW, "build-test", "success", "2026-12-10T10:00:00.000Z",
                        "2026-12-10T10:03:00.000Z", "http://gantry.example/pipelines/gantry/acme/app/7"),
                new Event.Pipeline(UUID.fromString("1285fe1d-d3a6-44fc-8886-8979558254c4"), 7,
                        "2026-12-10T09:59:59.000Z", new Event.Trigger("api", "2026-12-10T09:59:59.000Z",
                        new Event.Actor("ada")), new Event.Vcs("github", "https://github.com/acme/app",
                        "https://github.com/acme/app", "a1b2c3", "main", null)),
                job);
    }

    @Test
    void a_workflow_completed_body_has_circlecis_fields_and_no_job() throws Exception {
        Event event = new Event(UUID.randomUUID(), Event.Type.WORKFLOW_COMPLETED, "2026-12-10T10:03:00.001Z",
                snapshot(null));
        Webhook hook = new Webhook(UUID.randomUUID(), "ci-dashboard", URI.create("https://hooks.example/ci"), true,
                "s3cret");
        UUID delivery = UUID.randomUUID();

        JsonNode body = Event.JSON.readTree(WebhookPayload.render(event, hook, delivery));

        assertThat(body.path("id").asText()).isEqualTo(delivery.toString());
        assertThat(body.path("type").asText()).isEqualTo("workflow-completed");
        assertThat(body.path("happened_at").asText()).isEqualTo("2026-12-10T10:03:00.001Z");
        assertThat(body.path("webhook").path("name").asText()).isEqualTo("ci-dashboard");
        assertThat(body.path("project").path("slug").asText()).isEqualTo("gantry/acme/app");
        assertThat(body.path("organization").path("name").asText()).isEqualTo("acme");
        assertThat(body.path("workflow").path("status").asText()).isEqualTo("success");
        assertThat(body.path("workflow").path("stopped_at").asText()).isEqualTo("2026-12-10T10:03:00.000Z");
        assertThat(body.path("workflow").path("url").asText()).endsWith("/pipelines/gantry/acme/app/7");
        assertThat(body.path("pipeline").path("number").asLong()).isEqualTo(7);
        assertThat(body.path("pipeline").path("trigger").path("actor").path("login").asText()).isEqualTo("ada");
        assertThat(body.path("pipeline").path("vcs").path("origin_repository_url").asText())
                .isEqualTo("https://github.com/acme/app");
        assertThat(body.path("pipeline").path("vcs").path("branch").asText()).isEqualTo("main");
        assertThat(body.path("pipeline").path("vcs").has("tag")).isFalse();
        assertThat(body.has("job")).isFalse();
    }

    @Test
    void a_job_completed_body_carries_the_job_and_the_snapshot_survives_its_storage() throws Exception {
        Event.Snapshot snapshot = snapshot(new Event.Job(UUID.randomUUID(), 42, "test", "failed",
                "2026-12-10T10:01:00.000Z", "2026-12-10T10:02:00.000Z"));
        Event event = new Event(UUID.randomUUID(), Event.Type.JOB_COMPLETED, "2026-12-10T10:02:00.000Z",
                Event.snapshotOf(Event.snapshotJson(snapshot)));

        JsonNode body = Event.JSON.readTree(new String(WebhookPayload.render(event, new Webhook(UUID.randomUUID(),
                "h", URI.create("https://hooks.example/"), true, "k"), UUID.randomUUID()), StandardCharsets.UTF_8));

        assertThat(event.snapshot()).isEqualTo(snapshot);
        assertThat(body.path("type").asText()).isEqualTo("job-completed");
        assertThat(body.path("job").path("number").asLong()).isEqualTo(42);
        assertThat(body.path("job").path("status").asText()).isEqualTo("failed");
        assertThat(body.path("job").path("started_at").asText()).isEqualTo("2026-12-10T10:01:00.000Z");
    }
}
