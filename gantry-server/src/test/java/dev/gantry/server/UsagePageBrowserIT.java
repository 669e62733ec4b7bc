package dev.gantry.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.microsoft.playwright.Download;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.options.AriaRole;
import dev.gantry.server.agent.AgentSettings;
import dev.gantry.server.auth.TokenKind;
import dev.gantry.testkit.Browser;
import dev.gantry.testkit.BrowserExtension;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import dev.gantry.testkit.Screenshots;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.UUID;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The usage page in a real browser (Debian's Chromium through Playwright): reached from the header's link, checked by
 * axe-core, photographed for docs/ui.md; its form filters without JavaScript, and its CSV download is the API's. The
 * usage is the product's: tasks run by an agent over the agent API while acme's charging was off, spread over this
 * month's days, then charged by the ledger's backfill, which records the budget alert they cross.
 */
class UsagePageBrowserIT {
    @RegisterExtension
    static final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension(8);
    @RegisterExtension
    static final BrowserExtension chromium = new BrowserExtension();
    private static final Path SCREENSHOTS = Path.of("..", "docs", "ui");
    static final int TASKS = 12;

    @TempDir
    static Path home;

    static TestServer server;

    @BeforeAll
    static void start() {
        server = TestServer.start(pg.dataSource(), home, new ServerSettings(0, AgentSettings.defaults()
                .withHeartbeatInterval(Duration.ofMillis(300)).withPollTimeout(Duration.ofMillis(300))));
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void a_user_follows_the_link_to_usage_filters_it_without_javascript_and_downloads_the_apis_csv()
            throws Exception {
        usage();
        Page page = chromium.newPage();
        signIn(page);

        page.getByRole(AriaRole.NAVIGATION, new Page.GetByRoleOptions().setName("Site")).getByText("Usage").click();
        page.waitForURL("**/usage");
        assertThat(page.getByRole(AriaRole.HEADING, new Page.GetByRoleOptions().setName("acme")).count()).isOne();
        assertThat(page.locator("text=no budget").count()).as("other has none").isOne();
        assertThat(page.locator("svg.budget[role=img]").getAttribute("aria-label"))
                .endsWith("% of the monthly budget used");
        assertThat(page.locator("tbody th[scope=row]", new Page.LocatorOptions().setHasText("80 %")).count())
                .as("the alert the backfill recorded").isOne();
        chromium.assertNoSeriousViolations(page);
        Screenshots.fullPage(page, SCREENSHOTS.resolve("usage.png"));

        Download download = page.waitForDownload(() -> page.getByText("Download CSV").click());
        LocalDate today = LocalDate.now(ZoneOffset.UTC);
        String api = server.api().get("/api/v2/insights/usage?format=csv&from=" + today.withDayOfMonth(1) + "&to="
                + today).body();
        assertThat(Files.readString(download.path())).isEqualTo(api).contains("\r\nacme,app,large,");

        // The form is a GET: a reader without JavaScript filters as well.
        Page plain = chromium.newContext(Browser.contextOptions().setJavaScriptEnabled(false)).newPage();
        signIn(plain);
        plain.navigate(server.api().baseUrl() + "/usage");
        plain.getByLabel("Organization").selectOption("other");
        plain.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Show")).click();
        plain.waitForURL(Pattern.compile(".*/usage\\?org=other&from=.*"));
        assertThat(plain.getByRole(AriaRole.HEADING, new Page.GetByRoleOptions().setName("acme")).count()).isZero();
        assertThat(plain.locator("tfoot").innerText()).contains("Total").contains("10");
    }

    /**
     * acme (budget 450 credits) runs {@value #TASKS} tasks, medium and large, of one to four minutes, on the days of
     * this month so far, while its charging is off; the backfill then charges them, 400 credits: the 80 % alert.
     * other runs one, charged live.
     */
    private static void usage() {
        ApiClient admin = server.api();
        assertThat(admin.put("/api/v2/organization/acme/usage-budget", "{\"monthly_credits\": 450}").status())
                .isEqualTo(200);
        assertThat(admin.put("/api/v2/admin/organization/acme/charging", "{\"enabled\": false}").status())
                .isEqualTo(200);
        AgentClient agent = new AgentClient(admin.anonymous(), server.token(TokenKind.AGENT));
        String agentId = agent.registered("box", 4, 8192);
        RunFixtures acme = new RunFixtures(server.jdbi());
        UUID workflow = acme.workflow("build");
        LocalDate today = LocalDate.now(ZoneOffset.UTC);
        for (int i = 0; i < TASKS; i++) {
            RunFixtures.Job job = acme.job(workflow, "job-" + i);
            UUID id = (i % 3 == 0 ? job.resourceClass("large", 4, 8192) : job).insert();
            run(agent, agentId);
            int daysAgo = i % today.getDayOfMonth();
            int ranFor = 50 * (1 + i % 4);
            server.jdbi().useHandle(h -> h.execute("""
                    UPDATE gantry.job_task SET stopped_at = stopped_at - ? * interval '1 day',
                           accepted_at = stopped_at - ? * interval '1 day' - ? * interval '1 second',
                           started_at = stopped_at - ? * interval '1 day' - ? * interval '1 second'
                    WHERE job_id = ?""", daysAgo, daysAgo, ranFor, daysAgo, ranFor, id));
        }
        assertThat(admin.put("/api/v2/admin/organization/acme/charging", "{\"enabled\": true}").status())
                .isEqualTo(200);
        ApiClient.Answer backfill = admin.post("/api/v2/admin/usage/backfill", "{\"org\": \"acme\", \"from\": \""
                + today.withDayOfMonth(1) + "\", \"to\": \"" + today + "\"}");
        assertThat(backfill.status()).as(backfill.body()).isEqualTo(200);
        assertThat(backfill.json().path("charged").asInt()).isEqualTo(TASKS);
        RunFixtures other = new RunFixtures(server.jdbi(), "other");
        other.job(other.workflow("build"), "test").insert();
        run(agent, agentId);
        server.awaitUsageCounted();
    }

    private static void run(AgentClient agent, String agentId) {
        AgentClient.Claimed task = agent.claimed(agentId);
        assertThat(agent.heartbeat(task, task.lease()).status()).isEqualTo(200);
        assertThat(agent.complete(task, task.lease(), "success").status()).isEqualTo(200);
    }

    private static void signIn(Page page) {
        page.navigate(server.api().baseUrl() + "/projects");
        page.getByLabel("API token").fill(server.token(TokenKind.ADMIN));
        page.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Sign in")).click();
        page.waitForURL("**/projects");
    }
}
