package dev.gantry.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.icegreen.greenmail.junit5.GreenMailExtension;
import com.icegreen.greenmail.util.GreenMailUtil;
import com.icegreen.greenmail.util.ServerSetupTest;
import dev.gantry.notify.email.SmtpSettings;
import dev.gantry.server.agent.AgentSettings;
import dev.gantry.server.auth.TokenKind;
import dev.gantry.server.notify.FakeEndpoint;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import jakarta.mail.Multipart;
import jakarta.mail.Part;
import jakarta.mail.internet.MimeMessage;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Usage budget alerts delivered end to end (docs/usage.md, docs/notifications.md): tasks charged through the agent
 * protocol cross 80 % and then 100 % of an organization's budget, and exactly the Slack and e-mail destinations of its
 * projects that ask for budget alerts hear of each once, on a fake Slack server on 127.0.0.1 and GreenMail, a real SMTP
 * server; each links to the organization's usage page for the month; the destinations' delivery log shows them and a
 * redeliver sends one again.
 */
class BudgetAlertsIT {
    static final String ACME = "/api/v2/project/gh/acme/app/notifications";
    /** No workflow runs on it, so the destinations hear of budget alerts only. */
    static final String QUIET = "\"branches\": [\"no-such-branch\"]";

    @RegisterExtension
    final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension(12);
    @RegisterExtension
    static final GreenMailExtension MAIL = new GreenMailExtension(ServerSetupTest.SMTP);
    @TempDir
    Path home;

    TestServer server;
    AgentClient agent;
    FakeEndpoint slack;
    RunFixtures acme;
    UUID workflow;
    String agentId;
    String month = LocalDate.now(ZoneOffset.UTC).toString().substring(0, 7);

    @BeforeEach
    void start() throws Exception {
        ServerSettings settings = OutboundWebhooksIT.settings();
        server = TestServer.start(pg.dataSource(), home, settings.withAgent(AgentSettings.defaults()
                .withHeartbeatInterval(Duration.ofMillis(300)).withPollTimeout(Duration.ofMillis(300)))
                .withNotifications(settings.notifications().withSmtp(new SmtpSettings("127.0.0.1",
                        ServerSetupTest.SMTP.getPort(), null, null, "gantry@example.com", SmtpSettings.Tls.NONE))));
        agent = new AgentClient(server.api().anonymous(), server.token(TokenKind.AGENT));
        slack = new FakeEndpoint(FakeEndpoint.Mode.OK);
        acme = new RunFixtures(server.jdbi());
        workflow = acme.workflow("build");
        agentId = agent.registered("host-1");
    }

    @AfterEach
    void stop() {
        server.close();
        slack.close();
    }

    String create(String project, String json) {
        ApiClient.Answer created = server.api().post(project, json);
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        return created.text("id");
    }

    /**
     * A task of a medium job that runs and is charged 10 credits; its completion is sent twice. Returns once the
     * ledger's workers have counted it into the month, so each threshold is crossed by a known charge.
     */
    void charged(String job) {
        acme.job(workflow, job).insert();
        AgentClient.Claimed task = agent.claimed(agentId);
        assertThat(agent.heartbeat(task, task.lease()).status()).isEqualTo(200);
        assertThat(agent.complete(task, task.lease(), "success").status()).isEqualTo(200);
        assertThat(agent.complete(task, task.lease(), "success").status()).as("the repeat").isEqualTo(200);
        server.awaitUsageCounted();
    }

    void budget(long credits) {
        ApiClient.Answer set = server.api().put("/api/v2/organization/acme/usage-budget",
                "{\"monthly_credits\": " + credits + "}");
        assertThat(set.status()).as(set.body()).isEqualTo(200);
    }

    @Test
    void charges_crossing_80_and_100_percent_tell_each_asking_slack_and_email_destination_once() throws Exception {
        create(ACME, """
                {"kind": "slack", "name": "finance", "url": "%s", "budget-alerts": true, %s}"""
                .formatted(slack.url("/finance"), QUIET));
        create(ACME, """
                {"kind": "email", "name": "finance", "recipients": ["ada@example.com"], "budget-alerts": true, %s}"""
                .formatted(QUIET));
        create(ACME, """
                {"kind": "slack", "name": "builds", "url": "%s", %s}""".formatted(slack.url("/builds"), QUIET));
        server.jdbi().useHandle(h -> h.execute("UPDATE gantry.project SET vcs_url = ? WHERE id = ?",
                slack.url("/acme/app.git").toString(), acme.projectId));
        create(ACME, """
                {"kind": "commit-status", "name": "github", "forge": "github", "token": "t0ken", %s}"""
                .formatted(QUIET));
        new RunFixtures(server.jdbi(), "other");
        create("/api/v2/project/gh/other/app/notifications", """
                {"kind": "slack", "name": "other", "url": "%s", "budget-alerts": true}"""
                .formatted(slack.url("/other")));
        budget(25);

        charged("test-1"); // 10 credits: 40 %
        charged("test-2"); // 20: 80 %
        await().atMost(Duration.ofSeconds(10)).until(() -> slack.accepted().size() == 1
                && MAIL.getReceivedMessages().length == 1);
        charged("test-3"); // 30: 120 %
        charged("test-4");
        budget(25); // the same budget again records nothing more
        budget(30);

        await().atMost(Duration.ofSeconds(10)).until(() -> slack.accepted().size() == 2
                && MAIL.getReceivedMessages().length == 2);
        JsonNode warning = NotificationChannelsIT.json(slack.accepted().get(0).body());
        assertThat(warning.path("text").asText()).isEqualTo("⚠️ Organization acme has used 80 % of its usage budget for "
                + month);
        JsonNode attachment = warning.path("attachments").get(0);
        assertThat(attachment.path("color").asText()).isEqualTo("#ecb22e");
        assertThat(attachment.path("blocks").get(1).path("fields").findValuesAsText("text")).containsExactly(
                "*Organization*\nacme", "*Month*\n" + month, "*Threshold*\n80 %", "*Credits used*\n20 of 25 (80 %)");
        JsonNode exceeded = NotificationChannelsIT.json(slack.accepted().get(1).body());
        String usage = server.api().baseUrl() + "/usage?org=acme&from=" + YearMonth.parse(month).atDay(1) + "&to="
                + YearMonth.parse(month).atEndOfMonth();
        JsonNode button = attachment.at("/blocks/2/elements/0");
        assertThat(button.path("url").asText()).isEqualTo(usage);
        assertThat(button.at("/text/text").asText()).isEqualTo("View usage");
        assertThat(exceeded.path("text").asText()).isEqualTo("🛑 Organization acme has used its usage budget for "
                + month);
        assertThat(exceeded.at("/attachments/0/blocks/1/fields/3/text").asText())
                .isEqualTo("*Credits used*\n30 of 25 (120 %)");
        assertThat(slack.accepted()).extracting(FakeEndpoint.Received::path).containsOnly("/finance");

        MimeMessage[] mails = MAIL.getReceivedMessages();
        assertThat(List.of(mails).stream().map(m -> {
            try {
                return m.getSubject();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        })).containsExactlyInAnyOrder("[acme] 80 % of the usage budget used (" + month + ")",
                "[acme] Usage budget used up (" + month + ")");
        assertThat(GreenMailUtil.getWholeMessage(mails[0]) + GreenMailUtil.getWholeMessage(mails[1]))
                .contains("Credits used: 20 of 25 (80 %)").contains("Credits used: 30 of 25 (120 %)");
        for (MimeMessage mail : mails) {
            assertThat(decoded(mail)).as("the plain text and the HTML link")
                    .contains(usage + "\n").contains("<a href=\"" + usage.replace("&", "&amp;") + "\">");
        }

        sleep(Duration.ofMillis(500)); // anything more would have come by now
        assertThat(slack.calls()).isEqualTo(2);
        assertThat(MAIL.getReceivedMessages()).hasSize(2);
        long alertDeliveries = server.jdbi().withHandle(h -> h.createQuery("""
                SELECT count(*) FROM gantry.notify_delivery d JOIN gantry.notify_event e ON e.id = d.event_id
                WHERE e.type = 'budget-alert'""").mapTo(Long.class).one());
        assertThat(alertDeliveries).as("Slack and e-mail, each alert once").isEqualTo(4);
        JsonNode alerts = server.api().get("/api/v2/insights/usage?org=acme").json().path("budget_alerts");
        assertThat(alerts.findValuesAsText("threshold_percent")).containsExactly("80", "100");
        assertThat(alerts.findValues("deliveries")).allSatisfy(d -> {
            assertThat(d.path("delivered").asInt()).isEqualTo(2);
            assertThat(d.path("pending").asInt() + d.path("dead").asInt()).isZero();
        });
    }

    @Test
    void a_budget_reached_at_once_is_told_once_logged_and_redelivered_by_an_admin_only() {
        String finance = create(ACME, """
                {"kind": "slack", "name": "finance", "url": "%s", "budget-alerts": true, %s}"""
                .formatted(slack.url("/finance"), QUIET));
        charged("test");

        budget(12); // 10 credits of 12: 83 %
        budget(12);
        await().atMost(Duration.ofSeconds(10)).until(() -> slack.accepted().size() == 1);

        String log = ACME + "/" + finance + "/deliveries";
        await().atMost(Duration.ofSeconds(10)).until(() -> server.api().get(log).json().path("items").get(0)
                .path("state").asText().equals("delivered"));
        JsonNode items = server.api().get(log).json().path("items");
        assertThat(items).hasSize(1);
        JsonNode delivery = items.get(0);
        assertThat(delivery.path("event_type").asText()).isEqualTo("budget-alert");
        assertThat(delivery.path("attempt_count").asInt()).isEqualTo(1);
        assertThat(delivery.path("attempts").get(0).path("status_code").asInt()).isEqualTo(200);
        assertThat(delivery.path("delivered_at").isNull()).isFalse();

        String redeliver = log + "/" + delivery.path("id").asText() + "/redeliver";
        ApiClient viewer = viewer();
        assertThat(viewer.get(log).status()).as("a viewer reads the log").isEqualTo(200);
        ApiClient.Answer refused = viewer.post(redeliver, "{}");
        assertThat(refused.status()).isEqualTo(403);
        assertThat(refused.text("message")).isNotBlank();
        assertThat(server.api().post(log + "/" + UUID.randomUUID() + "/redeliver", "{}").status()).isEqualTo(404);

        ApiClient.Answer again = server.api().post(redeliver, "{}");
        assertThat(again.status()).as(again.body()).isEqualTo(202);
        await().atMost(Duration.ofSeconds(10)).until(() -> slack.accepted().size() == 2);
        assertThat(slack.accepted().get(1).body()).isEqualTo(slack.accepted().get(0).body());
        await().atMost(Duration.ofSeconds(10)).until(() -> server.api().get(log).json().at("/items/0/state")
                .asText().equals("delivered"));
        assertThat(server.api().get(log).json().at("/items/0/attempt_count").asInt()).isEqualTo(2);
        assertThat(server.api().get(ACME + "/" + UUID.randomUUID() + "/deliveries").status()).isEqualTo(404);
    }

    private ApiClient viewer() {
        ApiClient admin = server.api();
        assertThat(admin.post("/api/v2/user", "{\"login\": \"viewer-user\"}").status()).isEqualTo(201);
        assertThat(admin.put("/api/v2/organization/acme/member/viewer-user", "{\"role\": \"viewer\"}").status())
                .isEqualTo(200);
        return admin.withToken(admin.post("/api/v2/user/viewer-user/token", "{\"label\": \"budget\"}").text("token"));
    }

    /** The text of every part of {@code part}, decoded from its transfer encoding. */
    private static String decoded(Part part) throws Exception {
        if (part.getContent() instanceof Multipart parts) {
            StringBuilder text = new StringBuilder();
            for (int i = 0; i < parts.getCount(); i++) {
                text.append(decoded(parts.getBodyPart(i)));
            }
            return text.toString();
        }
        return part.getContent().toString().replace("\r\n", "\n");
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
