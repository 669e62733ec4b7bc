package dev.gantry.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.microsoft.playwright.Page;
import dev.gantry.server.auth.TokenKind;
import dev.gantry.server.storage.FileOutputStore;
import dev.gantry.testkit.Accessibility;
import dev.gantry.testkit.Browser;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import dev.gantry.testkit.Screenshots;
import java.nio.file.Path;
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
    private static final Path SCREENSHOTS = Path.of("..", "docs", "ui");

    @TempDir
    static Path home;

    static TestServer server;
    static Browser browser;
    static Accessibility axe;

    @BeforeAll
    static void start() {
        server = TestServer.startWithoutPlanBuilder(pg.dataSource(), home);
        browser = Browser.launch();
        axe = Accessibility.load();
    }

    @AfterAll
    static void stop() {
        if (browser != null) {
            browser.close();
        }
        server.close();
    }

    @Test
    void a_user_signs_in_follows_the_pipeline_to_a_job_and_sees_it_change_live() throws Exception {
        RunFixtures runs = new RunFixtures(server.jdbi());
        UUID workflow = runs.workflow("build-and-test");
        runs.job(workflow, "build").status("success").insert();
        UUID test = runs.job(workflow, "test").status("queued").requires("build").insert();
        Page page = browser.newPage();

        page.navigate(server.api().baseUrl() + "/projects");
        assertThat(page.url()).contains("/sign-in");
        axe.assertNoSeriousViolations(page);
        Screenshots.fullPage(page, SCREENSHOTS.resolve("sign-in.png"));
        page.getByLabel("API token").fill(server.token(TokenKind.ADMIN));
        page.getByRole(com.microsoft.playwright.options.AriaRole.BUTTON,
                new Page.GetByRoleOptions().setName("Sign in")).click();

        page.waitForURL("**/projects");
        axe.assertNoSeriousViolations(page);
        page.getByText("acme/app").click();
        page.waitForURL("**/pipelines/gantry/acme/app");
        axe.assertNoSeriousViolations(page);
        Screenshots.fullPage(page, SCREENSHOTS.resolve("pipelines.png"));
        page.getByText("#1").first().click();
        page.waitForURL("**/pipelines/gantry/acme/app/1");
        assertThat(page.locator("svg.graph rect.job").count()).isEqualTo(2);
        axe.assertNoSeriousViolations(page);
        Screenshots.fullPage(page, SCREENSHOTS.resolve("pipeline.png"));

        page.locator("ul.jobs a", new Page.LocatorOptions().setHasText("test")).click();
        page.waitForSelector("text=Why this job is waiting");
        axe.assertNoSeriousViolations(page);
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
        axe.assertNoSeriousViolations(page);
        Screenshots.fullPage(page, SCREENSHOTS.resolve("job-running.png"));

        page.navigate(server.api().baseUrl() + "/status");
        axe.assertNoSeriousViolations(page);
        Screenshots.fullPage(page, SCREENSHOTS.resolve("status.png"));
    }
}
