package dev.gantry.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gantry.server.agent.AgentSettings;
import dev.gantry.server.auth.TokenKind;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.time.YearMonth;
import java.time.ZoneOffset;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The usage page over real HTTP, on charges the product wrote: tasks claimed, accepted and completed through the agent
 * API are charged by the ledger, budgets and charging are set through the API. Who sees what is the API's rule: a
 * viewer sees their organization only and naming another is a 403; the CSV download is the API's CSV.
 */
class UsagePageIT {
    @RegisterExtension
    static final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension(8);

    @TempDir
    static Path home;

    static TestServer server;
    static ApiClient admin;
    static AgentClient agent;
    static UiPages ui;
    String agentId;

    @BeforeAll
    static void start() {
        server = TestServer.start(pg.dataSource(), home, new ServerSettings(0, AgentSettings.defaults()
                .withHeartbeatInterval(Duration.ofMillis(300)).withPollTimeout(Duration.ofMillis(300))));
        admin = server.api();
        agent = new AgentClient(admin.anonymous(), server.token(TokenKind.AGENT));
        ui = new UiPages(admin.baseUrl());
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @BeforeEach
    void clean() {
        pg.truncate("gantry.project", "gantry.agent", "gantry_queue.message", "gantry.usage_charge",
                "gantry.usage_organization", "gantry.usage_month", "gantry.usage_budget_alert", "gantry.ui_session");
        agentId = agent.registered("host-1");
    }

    /** acme: a parallel medium job (2 × 10 credits) and a large one (20), budget 50; other: 10, no budget, off. */
    void charge() {
        assertThat(admin.put("/api/v2/organization/acme/usage-budget", "{\"monthly_credits\": 50}").status())
                .isEqualTo(200);
        RunFixtures acme = new RunFixtures(server.jdbi());
        acme.job(acme.workflow("build"), "test").parallelism(2).insert();
        acme.job(acme.workflow("deploy"), "big").resourceClass("large", 4, 8192).insert();
        RunFixtures other = new RunFixtures(server.jdbi(), "other");
        other.job(other.workflow("build"), "test").insert();
        for (int i = 0; i < 4; i++) {
            AgentClient.Claimed task = agent.claimed(agentId);
            assertThat(agent.heartbeat(task, task.lease()).status()).isEqualTo(200);
            assertThat(agent.complete(task, task.lease(), "success").status()).isEqualTo(200);
        }
        assertThat(admin.put("/api/v2/admin/organization/other/charging", "{\"enabled\": false}").status())
                .isEqualTo(200);
        server.awaitUsageCounted();
    }

    @Test
    void the_page_shows_each_organizations_month_the_charges_by_project_and_class_per_day_and_the_alerts()
            throws Exception {
        charge();
        LocalDate today = LocalDate.now(ZoneOffset.UTC);
        String session = ui.signIn(server.token(TokenKind.ADMIN));

        HttpResponse<String> page = ui.get("/usage?from=" + today.minusDays(2) + "&to=" + today, session);

        assertThat(page.statusCode()).as(page.body()).isEqualTo(200);
        String html = UiPages.flat(page.body());
        assertThat(html).contains("<h3 id=\"org-acme\">acme</h3>").contains("aria-label=\"80 % of the monthly budget "
                + "used\"").contains("<rect class=\"warn\" width=\"192\"").contains("<p>40 of 50 credits (80 %)</p>");
        assertThat(html).contains("<h3 id=\"org-other\">other</h3><p>10 credits; no budget</p><p>Charging: <strong>"
                + "off</strong>");
        assertThat(html).contains("<tr><td>acme</td><th scope=\"row\">app</th><td>large</td><td>1</td><td>1</td>"
                + "<td>20</td></tr><tr><td>acme</td><th scope=\"row\">app</th><td>medium</td><td>2</td><td>2</td>"
                + "<td>20</td></tr><tr><td>other</td><th scope=\"row\">app</th><td>medium</td><td>1</td><td>1</td>"
                + "<td>10</td></tr>");
        assertThat(html).contains("<tfoot><tr><th scope=\"row\" colspan=\"3\">Total</th><td>4</td><td>4</td>"
                + "<td>50</td></tr></tfoot>");
        assertThat(html).contains("aria-label=\"Credits per day, " + today.minusDays(2) + " to " + today
                + ": 3 of 3 with a value, from 0 to 50, last 50.\"");
        // 40 of 50 reached the 80 % threshold with the last charge; no destination asked for budget alerts.
        assertThat(html).containsPattern("<tr><td>acme</td><td>" + YearMonth.from(today) + "</td><th scope=\"row\">"
                + "80 %</th><td>40 of 50</td><td><time datetime=\"[^\"]+\">[^<]+</time></td><td>sent to no one</td>"
                + "</tr>");
        assertThat(html).contains("href=\"/usage/csv?from=" + today.minusDays(2) + "&amp;to=" + today + "\"");
        assertThat(ui.get("/projects", session).body()).contains("href=\"/usage\"");
    }

    @Test
    void a_viewer_sees_only_their_organizations_and_naming_another_is_refused() throws Exception {
        charge();
        String viewer = ui.signIn(token("watcher", "acme", "viewer"));

        String html = UiPages.flat(ui.get("/usage", viewer).body());

        assertThat(html).contains("<h3 id=\"org-acme\">acme</h3>").doesNotContain("org-other")
                .doesNotContain("<td>other</td>").contains("<option value=\"acme\">acme</option>")
                .doesNotContain("<option value=\"other\"");
        assertThat(html).as("acme's total alone").contains("<td>3</td><td>3</td><td>40</td></tr></tfoot>");
        HttpResponse<String> refused = ui.get("/usage?org=other", viewer);
        assertThat(refused.statusCode()).isEqualTo(403);
        assertThat(refused.body()).contains("watcher is not a member of organization other");
        assertThat(ui.get("/usage/csv?org=other", viewer).statusCode()).isEqualTo(403);
        assertThat(ui.get("/usage?org=acme", viewer).statusCode()).isEqualTo(200);
        assertThat(ui.get("/usage?from=2026-02-01&to=2026-01-01", viewer).statusCode()).isEqualTo(400);
        assertThat(ui.get("/usage", null).statusCode()).isEqualTo(302);
        assertThat(ui.get("/usage/csv", null).statusCode()).isEqualTo(302);
    }

    @Test
    void the_budget_alerts_link_shows_the_month_and_its_csv_is_the_apis() throws Exception {
        charge();
        YearMonth month = YearMonth.now(ZoneOffset.UTC);
        String range = "org=acme&from=" + month.atDay(1) + "&to=" + month.atEndOfMonth();
        String session = ui.signIn(token("dev", "acme", "member"));

        String html = UiPages.flat(ui.get("/usage?" + range, session).body());
        HttpResponse<String> csv = ui.get("/usage/csv?" + range, session);

        assertThat(html).contains("<option value=\"acme\" selected>acme</option>")
                .contains("value=\"" + month.atEndOfMonth() + "\"").contains("<td>3</td><td>3</td><td>40</td>")
                .contains("<th scope=\"row\">80 %</th>");
        assertThat(csv.statusCode()).isEqualTo(200);
        assertThat(csv.headers().firstValue("Content-Type").orElseThrow()).startsWith("text/csv");
        assertThat(csv.headers().firstValue("Content-Disposition").orElseThrow())
                .isEqualTo("attachment; filename=\"usage-" + month.atDay(1) + "-" + month.atEndOfMonth() + ".csv\"");
        ApiClient.Answer api = admin.get("/api/v2/insights/usage?format=csv&" + range);
        assertThat(csv.body()).isEqualTo(api.body()).startsWith("org,project,resource_class,day,tasks,seconds,")
                .contains("\r\nacme,app,large,");
        assertThat(csv.body().split("\r\n")).hasSize(3);
    }

    // ---- helpers

    /** A token of a new user with {@code role} in {@code organization}. */
    private static String token(String login, String organization, String role) {
        assertThat(admin.post("/api/v2/user", "{\"login\": \"" + login + "\"}").status()).isLessThan(500);
        assertThat(admin.put("/api/v2/organization/" + organization + "/member/" + login,
                "{\"role\": \"" + role + "\"}").status()).isLessThan(300);
        ApiClient.Answer token = admin.post("/api/v2/user/" + login + "/token", "{\"label\": \"usage\"}");
        assertThat(token.status()).as(token.body()).isEqualTo(201);
        return token.text("token");
    }




}
