package dev.gantry.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.icegreen.greenmail.junit5.GreenMailExtension;
import com.icegreen.greenmail.util.GreenMailUtil;
import com.icegreen.greenmail.util.ServerSetupTest;
import dev.gantry.notify.email.SmtpSettings;
import dev.gantry.queue.QueueSettings;
import dev.gantry.queue.Queues;
import dev.gantry.resilience.Backoff;
import dev.gantry.server.http.ExternalUrl;
import dev.gantry.server.http.Json;
import dev.gantry.server.notify.DeliveryQueue;
import dev.gantry.server.notify.EventOutbox;
import dev.gantry.server.notify.FakeEndpoint;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import jakarta.mail.internet.MimeMessage;
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
 * Slack, e-mail and commit statuses end to end (docs/notifications.md): destinations made through the project's
 * notifications API, workflows started and ended through the event outbox, and the exact requests that reach fake
 * Slack and forge servers on 127.0.0.1, and the mail GreenMail, a real SMTP server, takes.
 */
class NotificationChannelsIT {
    static final String SHA = "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678";
    static final String PROJECT = "/api/v2/project/gh/acme/app/notifications";

    @RegisterExtension
    final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension(12);
    @RegisterExtension
    static final GreenMailExtension MAIL = new GreenMailExtension(ServerSetupTest.SMTP);
    @TempDir
    Path home;

    TestServer server;
    FakeEndpoint slack;
    FakeEndpoint forge;
    RunFixtures runs;
    Queues queues;
    Jdbi reporting; // the orchestrator's stand-in: its transactions report to the outbox

    @BeforeEach
    void start() throws Exception {
        // Fast retries, within a window long enough that a start whose status fails is still retrying when its
        // workflow ends, however busy the machine.
        server = TestServer.start(pg.dataSource(), home, OutboundWebhooksIT.settings().withNotifications(
                OutboundWebhooksIT.settings().notifications().withSmtp(new SmtpSettings("127.0.0.1",
                        ServerSetupTest.SMTP.getPort(), null, null, "gantry@example.com", SmtpSettings.Tls.NONE))
                        .withRetries(new Backoff(Duration.ofMillis(100), Duration.ofMillis(400)),
                                Duration.ofMinutes(5))));
        slack = new FakeEndpoint(FakeEndpoint.Mode.OK);
        forge = new FakeEndpoint(FakeEndpoint.Mode.OK);
        runs = new RunFixtures(server.jdbi());
        queues = Queues.start(pg.dataSource(), QueueSettings.defaults());
        reporting = Jdbi.create(pg.dataSource()).installPlugin(new SqlObjectPlugin());
        EventOutbox.install(reporting, DeliveryQueue.onMain(queues), ExternalUrl.configured(URI.create("https://ci.example")));
        server.jdbi().useHandle(h -> h.execute("UPDATE gantry.project SET vcs_url = ? WHERE id = ?",
                forge.url("/acme/app.git").toString(), runs.projectId));
    }

    @AfterEach
    void stop() {
        server.close();
        queues.close();
        slack.close();
        forge.close();
    }

    String create(String json) {
        ApiClient.Answer created = server.api().post(PROJECT, json);
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        return created.text("id");
    }

    /** A workflow of the fixtures' pipeline (branch main) that starts, through the outbox. */
    UUID started(String name) {
        UUID workflow = runs.workflow(name);
        reporting.useTransaction(h -> EventOutbox.workflowStarted(h, workflow, now()));
        return workflow;
    }

    /** The workflow ends with {@code status}, through the outbox, as the orchestrator ends one. */
    void ended(UUID workflow, String status) {
        reporting.useTransaction(h -> {
            h.execute("UPDATE gantry.workflow SET status = ?, stopped_at = created_at + interval '65 seconds' "
                    + "WHERE id = ?", status, workflow);
            EventOutbox.workflowCompleted(h, workflow, now());
        });
    }

    @Test
    void slack_and_a_github_status_hear_of_a_workflow_with_the_exact_requests_and_secrets_never_show() {
        String slackId = create("""
                {"kind": "slack", "name": "team", "url": "%s", "when": "always"}"""
                .formatted(slack.url("/services/T0/B0/secret")));
        create("""
                {"kind": "commit-status", "name": "github", "forge": "github", "token": "ghp_t0ken"}""");

        UUID workflow = started("build");
        await().atMost(Duration.ofSeconds(10)).until(() -> forge.accepted().size() == 1);
        assertThat(slack.calls()).as("Slack hears of ends only").isZero();
        FakeEndpoint.Received pending = forge.accepted().getFirst();
        assertThat(pending.method()).isEqualTo("POST");
        assertThat(pending.path()).isEqualTo("/api/v3/repos/acme/app/statuses/" + SHA);
        assertThat(pending.header("Authorization")).isEqualTo("Bearer ghp_t0ken");
        assertThat(pending.header("Accept")).isEqualTo("application/vnd.github+json");
        JsonNode pendingBody = json(pending.body());
        assertThat(pendingBody.path("state").asText()).isEqualTo("pending");
        assertThat(pendingBody.path("context").asText()).isEqualTo("ci/gantry: build");
        assertThat(pendingBody.path("target_url").asText()).isEqualTo("https://ci.example/pipelines/gantry/acme/app/1");

        ended(workflow, "failed");
        await().atMost(Duration.ofSeconds(10)).until(() -> forge.accepted().size() == 2
                && slack.accepted().size() == 1);
        assertThat(json(forge.accepted().get(1).body()).path("state").asText()).isEqualTo("failure");
        FakeEndpoint.Received message = slack.accepted().getFirst();
        assertThat(message.path()).isEqualTo("/services/T0/B0/secret");
        assertThat(message.header("Content-Type")).startsWith("application/json");
        JsonNode body = json(message.body());
        assertThat(body.path("text").asText()).isEqualTo("❌ Workflow build failed in gantry/acme/app");
        JsonNode attachment = body.path("attachments").get(0);
        assertThat(attachment.path("color").asText()).isEqualTo("#e01e5a");
        JsonNode blocks = attachment.path("blocks");
        assertThat(blocks.get(1).path("fields").findValuesAsText("text")).containsExactly(
                "*Project*\ngantry/acme/app", "*Branch*\nmain", "*Commit*\n`a1b2c3d`", "*Who*\nadmin",
                "*Duration*\n1m 05s");
        assertThat(blocks.get(2).path("elements").get(0).path("url").asText())
                .isEqualTo("https://ci.example/pipelines/gantry/acme/app/1");

        JsonNode listed = server.api().get(PROJECT).json().path("items");
        assertThat(listed).hasSize(2);
        assertThat(listed.toString()).doesNotContain("secret").doesNotContain("ghp_t0ken");
        assertThat(listed.get(0).path("host").asText()).isEqualTo("127.0.0.1");
        assertThat(listed.get(1).path("repository").asText()).isEqualTo("acme/app");
        assertThat(server.count("gantry.notify_delivery")).isEqualTo(3);
        assertThat(server.api().delete(PROJECT + "/" + slackId).status()).isEqualTo(200);
        assertThat(server.api().get(PROJECT + "/" + slackId).status()).isEqualTo(404);
    }

    @Test
    void gitlab_and_gitea_get_their_own_paths_headers_and_states_and_each_logs_its_deliveries() {
        String gitlabId = create("""
                {"kind": "commit-status", "name": "gitlab", "forge": "gitlab", "token": "glpat-1"}""");
        create("""
                {"kind": "commit-status", "name": "gitea", "forge": "gitea", "token": "gitea-1"}""");

        UUID workflow = started("deploy");
        await().atMost(Duration.ofSeconds(10)).until(() -> forge.accepted().size() == 2);
        ended(workflow, "canceled");

        await().atMost(Duration.ofSeconds(10)).until(() -> forge.accepted().size() == 4);
        List<FakeEndpoint.Received> gitlab = forge.accepted().stream()
                .filter(r -> r.rawPath().startsWith("/api/v4/")).toList();
        assertThat(gitlab).hasSize(2).allSatisfy(r -> {
            assertThat(r.rawPath()).isEqualTo("/api/v4/projects/acme%2Fapp/statuses/" + SHA);
            assertThat(r.header("PRIVATE-TOKEN")).isEqualTo("glpat-1");
            assertThat(json(r.body()).path("name").asText()).isEqualTo("ci/gantry: deploy");
            assertThat(json(r.body()).path("ref").asText()).isEqualTo("main");
        });
        assertThat(gitlab.stream().map(r -> json(r.body()).path("state").asText()))
                .containsExactlyInAnyOrder("pending", "canceled");
        List<FakeEndpoint.Received> gitea = forge.accepted().stream()
                .filter(r -> r.rawPath().startsWith("/api/v1/")).toList();
        assertThat(gitea).hasSize(2).allSatisfy(r -> {
            assertThat(r.path()).isEqualTo("/api/v1/repos/acme/app/statuses/" + SHA);
            assertThat(r.header("Authorization")).isEqualTo("token gitea-1");
            assertThat(json(r.body()).path("context").asText()).isEqualTo("ci/gantry: deploy");
        });
        assertThat(gitea.stream().map(r -> json(r.body()).path("state").asText()))
                .containsExactlyInAnyOrder("pending", "error");
        String log = PROJECT + "/" + gitlabId + "/deliveries";
        await().atMost(Duration.ofSeconds(10)).until(() -> server.api().get(log).json().path("items")
                .findValuesAsText("state").equals(List.of("delivered", "delivered")));
        JsonNode items = server.api().get(log).json().path("items");
        assertThat(items.findValuesAsText("event_type")).as("newest first")
                .containsExactly("workflow-completed", "workflow-started");
        assertThat(items.findValuesAsText("attempt_count")).containsOnly("1");
        assertThat(items.get(0).at("/attempts/0/status_code").asInt()).isEqualTo(200);
    }

    @Test
    void a_start_status_still_waiting_when_its_workflow_ends_is_superseded_and_never_lands_after_the_end() {
        String github = create("""
                {"kind": "commit-status", "name": "github", "forge": "github", "token": "ghp_t0ken"}""");
        forge.mode(FakeEndpoint.Mode.FAIL);
        UUID workflow = started("build");
        await().atMost(Duration.ofSeconds(30)).until(() -> forge.calls() >= 1); // the start failed, its retry waits
        ended(workflow, "success");
        forge.mode(FakeEndpoint.Mode.OK);

        String log = PROJECT + "/" + github + "/deliveries";
        await().atMost(Duration.ofSeconds(30)).until(() -> server.api().get(log).json().path("items")
                .findValuesAsText("state").equals(List.of("delivered", "superseded")));
        assertThat(forge.accepted()).as("the forge never went back to pending").hasSize(1);
        assertThat(json(forge.accepted().getFirst().body()).path("state").asText()).isEqualTo("success");
        String start = server.api().get(log).json().path("items").get(1).path("id").asText();

        assertThat(server.api().post(log + "/" + start + "/redeliver", "{}").status()).isEqualTo(202);
        await().atMost(Duration.ofSeconds(30)).until(() -> server.api().get(log).json().path("items").get(1)
                .path("state").asText().equals("superseded"));
        assertThat(forge.accepted()).as("a redelivered start is superseded again").hasSize(1);
    }

    @Test
    void rules_pick_failure_fixed_and_branches_and_email_arrives_through_smtp() throws Exception {
        create("""
                {"kind": "slack", "name": "failures", "url": "%s", "when": "failure"}"""
                .formatted(slack.url("/failures")));
        create("""
                {"kind": "slack", "name": "releases", "url": "%s", "branches": ["release/*"]}"""
                .formatted(slack.url("/releases")));
        create("""
                {"kind": "email", "name": "team", "recipients": ["ada@example.com", "bob@example.com"],
                 "when": "fixed", "branches": ["main", "dev*"]}""");

        ended(runs.workflow("build"), "failed");
        await().atMost(Duration.ofSeconds(10)).until(() -> slack.accepted().size() == 1);
        ended(runs.workflow("build"), "success"); // the same workflow on main, fixed

        // The fixed run's message, a copy per recipient.
        await().atMost(Duration.ofSeconds(10)).until(() -> MAIL.getReceivedMessages().length == 2);
        assertThat(server.count("gantry.notify_delivery")).as("none for the releases channel").isEqualTo(2);
        assertThat(slack.accepted()).extracting(FakeEndpoint.Received::path).containsExactly("/failures");
        MimeMessage[] mails = MAIL.getReceivedMessages();
        assertThat(mails).hasSize(2); // one message, one copy per recipient
        MimeMessage mail = mails[0];
        assertThat(mail.getSubject()).isEqualTo("[gantry/acme/app] Workflow build succeeded (main)");
        assertThat(mail.getFrom()[0].toString()).isEqualTo("gantry@example.com");
        assertThat(List.of(mail.getAllRecipients()).stream().map(Object::toString))
                .containsExactly("ada@example.com", "bob@example.com");
        String raw = GreenMailUtil.getWholeMessage(mail);
        assertThat(raw).contains("text/plain").contains("text/html")
                .contains("Project: gantry/acme/app").contains("Status: success");
        assertThat(mail.getHeader("X-Gantry-Delivery-Id")).hasSize(1);

        ApiClient.Answer bad = server.api().post(PROJECT, """
                {"kind": "email", "name": "x", "recipients": ["not an address"]}""");
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.text("field")).isEqualTo("recipients");
        assertThat(server.api().post(PROJECT, """
                {"kind": "slack", "name": "x", "url": "https://hooks.slack.com/x", "when": "sometimes"}""")
                .text("field")).isEqualTo("when");
        assertThat(server.api().post("/api/v2/project/gh/acme/nope/notifications", """
                {"kind": "slack", "name": "x", "url": "https://hooks.slack.com/x"}""").status()).isEqualTo(404);
    }

    static OffsetDateTime now() {
        return OffsetDateTime.now(ZoneOffset.UTC);
    }

    static JsonNode json(byte[] body) {
        try {
            return Json.MAPPER.readTree(new String(body, StandardCharsets.UTF_8));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
