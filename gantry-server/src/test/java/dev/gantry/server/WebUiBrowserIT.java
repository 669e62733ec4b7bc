package dev.gantry.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.microsoft.playwright.Locator;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.options.AriaRole;
import dev.gantry.server.auth.TokenKind;
import dev.gantry.server.status.StatusSettings;
import dev.gantry.server.storage.FileOutputStore;
import dev.gantry.testkit.BrowserExtension;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import dev.gantry.testkit.Screenshots;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The web UI in a real browser (Debian's Chromium through Playwright): signing in with the form, following links from
 * the projects to a job, a job page changing live over its event stream as the job starts (its status, a new step and
 * its output), and axe-core finding no serious accessibility violation on any page. Saves the screenshots docs/ui.md
 * shows. LiveBrowserIT measures how soon.
 */
class WebUiBrowserIT {
    @RegisterExtension
    static final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension();
    @RegisterExtension
    static final BrowserExtension chromium = new BrowserExtension();
    private static final Path SCREENSHOTS = Path.of("..", "docs", "ui");

    @TempDir
    static Path home;

    static TestServer server;

    @BeforeAll
    static void start() {
        // The status page evaluated every half second, so its outage shows within a few seconds.
        StatusSettings status = StatusSettings.defaults();
        server = TestServer.startWithoutPlanBuilder(pg.dataSource(), home, new ServerSettings(0).withStatus(
                new StatusSettings(Duration.ofMillis(500), status.shortWindow(), status.longWindow(),
                        status.jobStartObjective(), status.planObjective())));
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void a_user_signs_in_follows_the_pipeline_to_a_job_and_sees_it_change_live() throws Exception {
        RunFixtures runs = new RunFixtures(server.jdbi());
        UUID workflow = runs.workflow("build-and-test");
        runs.job(workflow, "build").status("success").insert();
        UUID test = runs.job(workflow, "test").status("queued").requires("build").insert();
        runs.queuedAgo(test, Duration.ofMinutes(3));
        Page page = chromium.newPage();

        page.navigate(server.api().baseUrl() + "/projects");
        assertThat(page.url()).contains("/sign-in");
        chromium.assertNoSeriousViolations(page);
        Screenshots.fullPage(page, SCREENSHOTS.resolve("sign-in.png"));
        page.getByLabel("API token").fill(server.token(TokenKind.ADMIN));
        page.getByRole(AriaRole.BUTTON,
                new Page.GetByRoleOptions().setName("Sign in")).click();

        page.waitForURL("**/projects");
        chromium.assertNoSeriousViolations(page);
        page.getByText("acme/app").click();
        page.waitForURL("**/pipelines/gantry/acme/app");
        chromium.assertNoSeriousViolations(page);
        Screenshots.fullPage(page, SCREENSHOTS.resolve("pipelines.png"));
        page.getByText("#1").first().click();
        page.waitForURL("**/pipelines/gantry/acme/app/1");
        assertThat(page.locator("svg.graph rect.job").count()).isEqualTo(2);
        chromium.assertNoSeriousViolations(page);
        Screenshots.fullPage(page, SCREENSHOTS.resolve("pipeline.png"));

        page.locator("ul.jobs a", new Page.LocatorOptions().setHasText("test")).click();
        page.waitForSelector("text=Why this job is waiting");
        chromium.assertNoSeriousViolations(page);
        Screenshots.fullPage(page, SCREENSHOTS.resolve("job-waiting.png"));

        // The job starts and its first step writes coloured output: the open page shows it without a reload.
        server.jdbi().useHandle(h -> {
            h.execute("UPDATE gantry.job SET status = 'running', started_at = now() WHERE id = ?", test);
            h.execute("UPDATE gantry.job_task SET status = 'running', started_at = now() WHERE job_id = ?", test);
            h.execute("""
                    INSERT INTO gantry.job_step (job_id, node_index, step_index, name, status, output_offset, started_at)
                    VALUES (?, 0, 0, 'Run the tests', 'running', 0, now())""", test);
        });
        new FileOutputStore(home.resolve("output")).append(test, 0, 0, new java.io.ByteArrayInputStream(
                "\u001b[32m3 tests passed\u001b[0m\n".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        page.waitForSelector("pre.output >> text=3 tests passed",
                new Page.WaitForSelectorOptions().setTimeout(5_000));
        assertThat(page.locator("#job-head h1 .status").textContent()).isEqualTo("running");
        assertThat(page.getByText("No steps have started yet.").isVisible()).as("the step added live replaces it")
                .isFalse();
        assertThat(page.locator("pre.output span.a-fg-2").textContent()).isEqualTo("3 tests passed");
        chromium.assertNoSeriousViolations(page);
        Screenshots.fullPage(page, SCREENSHOTS.resolve("job-running.png"));

        page.navigate(server.api().baseUrl() + "/status");
        chromium.assertNoSeriousViolations(page);
        Screenshots.fullPage(page, SCREENSHOTS.resolve("status.png"));
    }

    @Test
    void a_viewer_reads_without_buttons_and_a_member_cancels_a_workflow_from_its_page() {
        RunFixtures runs = new RunFixtures(server.jdbi(), "team");
        UUID workflow = runs.workflow("deploy");
        runs.job(workflow, "build").status("queued").insert();
        String pipeline = server.api().baseUrl() + "/pipelines/gantry/team/app/1";

        Page viewer = signedIn(userIn("team", "viewer"));
        viewer.navigate(pipeline);
        assertThat(viewer.locator("h2 .status").first().textContent()).isEqualToIgnoringCase("running");
        assertThat(viewer.locator("main button").count()).as("a viewer's buttons").isZero();
        chromium.assertNoSeriousViolations(viewer);

        Page member = signedIn(userIn("team", "member"));
        member.navigate(pipeline);
        member.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Cancel workflow")).click();
        member.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Rerun workflow")).waitFor();
        assertThat(member.locator("h2 .status").first().textContent()).isEqualToIgnoringCase("canceled");
        String stored = server.jdbi().withHandle(h -> h.createQuery("SELECT status FROM gantry.workflow WHERE id = :id")
                .bind("id", workflow).mapTo(String.class).one());
        assertThat(stored).isEqualTo("canceled");
        chromium.assertNoSeriousViolations(member);
    }

    @Test
    void while_the_database_is_down_a_page_says_so_and_the_status_page_shows_the_outage_then_the_recovery() {
        Page page = signedIn(server.token(TokenKind.ADMIN));
        pg.stopServer();
        try {
            page.navigate(server.api().baseUrl() + "/projects");
            assertThat(page.locator("h1").textContent()).isEqualTo("Unavailable for a moment");
            assertThat(page.locator("[role=alert]").textContent()).contains("the database cannot take this request");
            chromium.assertNoSeriousViolations(page);
            awaitStatus(page, "Database", "Major outage");
        } finally {
            pg.startServer();
        }
        awaitStatus(page, "Database", "Operational");
    }

    /** Reloads the status page until {@code component}'s row shows {@code state}, as a person watching it would. */
    private static void awaitStatus(Page page, String component, String state) {
        long deadline = System.nanoTime() + StatusIT.WITHIN.toNanos();
        Locator row = page.locator("tr", new Page.LocatorOptions().setHas(page.locator("th",
                new Page.LocatorOptions().setHasText(component))));
        while (true) {
            page.navigate(server.api().baseUrl() + "/status");
            if (row.locator(".state").first().textContent().equals(state)) {
                return;
            }
            assertThat(System.nanoTime()).as("%s shown as %s within a minute", component, state).isLessThan(deadline);
            page.waitForTimeout(500);
        }
    }

    /** A user who has {@code role} in {@code organization}, made through the API; returns the user's token. */
    private static String userIn(String organization, String role) {
        String login = role + "-of-" + organization;
        assertThat(server.api().post("/api/v2/user", "{\"login\": \"" + login + "\"}").status()).isEqualTo(201);
        assertThat(server.api().put("/api/v2/organization/" + organization + "/member/" + login,
                "{\"role\": \"" + role + "\"}").status()).isBetween(200, 204);
        return server.api().post("/api/v2/user/" + login + "/token", "{\"label\": \"browser\"}").text("token");
    }

    /** A page in a browser context of its own, signed in with {@code token} through the form. */
    private static Page signedIn(String token) {
        Page page = chromium.newPage();
        page.navigate(server.api().baseUrl() + "/sign-in");
        page.getByLabel("API token").fill(token);
        page.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Sign in")).click();
        page.waitForURL("**/projects");
        return page;
    }
}
