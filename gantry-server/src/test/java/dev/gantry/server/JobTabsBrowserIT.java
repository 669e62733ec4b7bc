package dev.gantry.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.microsoft.playwright.Download;
import com.microsoft.playwright.Locator;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.options.AriaRole;
import dev.gantry.server.agent.AgentSettings;
import dev.gantry.server.auth.TokenKind;
import dev.gantry.testkit.BrowserExtension;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import dev.gantry.testkit.Screenshots;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job's Tests and Artifacts tabs and the search of its output in a real browser (Debian's Chromium through
 * Playwright), the results uploaded through the agent API: the tabs are clicked, axe-core finds no serious
 * violation on them, an HTML artifact is downloaded rather than run, and a search hit opens its step. Saves the
 * screenshots docs/ui.md shows.
 */
class JobTabsBrowserIT {
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
        server = TestServer.start(pg.dataSource(), home, new ServerSettings(0, AgentSettings.defaults()
                .withPollTimeout(Duration.ofMillis(300))));
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void a_user_reads_the_tests_downloads_an_artifact_and_searches_the_output() throws Exception {
        RunFixtures runs = new RunFixtures(server.jdbi());
        UUID job = runs.job(runs.workflow("build-and-test"), "test").insert();
        AgentClient agent = new AgentClient(server.api().anonymous(), server.token(TokenKind.AGENT));
        AgentClient.Claimed task = agent.claimed(agent.registered("host-1"));
        runJob(agent, task);
        await().atMost(Duration.ofSeconds(10)).until(() -> runs.jobStatus(job).equals("failed"));
        String base = server.api().baseUrl() + "/jobs/gantry/acme/app/" + runs.number(job);
        Page page = chromium.newPage();

        page.navigate(base);
        page.getByLabel("API token").fill(server.token(TokenKind.ADMIN));
        page.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Sign in")).click();
        page.waitForURL(base);
        chromium.assertNoSeriousViolations(page);

        page.getByRole(AriaRole.LINK, new Page.GetByRoleOptions().setName("Tests").setExact(true)).click();
        page.waitForURL(base + "/tests");
        Locator failures = page.locator("article.failure h4");
        assertThat(failures.count()).isEqualTo(2);
        assertThat(failures.first().textContent()).contains("parses_dates");
        assertThat(page.locator("pre.failure-text").first().isVisible()).as("the whole text starts folded").isFalse();
        page.getByText("The whole failure text").first().click();
        assertThat(page.locator("pre.failure-text").first().textContent()).contains("ParserTest.java:42");
        page.evaluate("() => document.activeElement.blur()");
        chromium.assertNoSeriousViolations(page);
        Screenshots.fullPage(page, SCREENSHOTS.resolve("job-tests.png"));

        page.getByRole(AriaRole.LINK, new Page.GetByRoleOptions().setName("Artifacts").setExact(true)).click();
        page.waitForURL(base + "/artifacts");
        chromium.assertNoSeriousViolations(page);
        Screenshots.fullPage(page, SCREENSHOTS.resolve("job-artifacts.png"));
        // The artifact's script would mark this origin's storage if it ran here; it is saved as a file instead,
        // from the link and when the browser is sent to its address without the link's download hint alike.
        Download download = page.waitForDownload(() -> page.getByText("coverage/index.html").click());
        assertThat(download.suggestedFilename()).isEqualTo("index.html");
        assertThat(download.failure()).isNull();
        String href = page.getByText("coverage/index.html").getAttribute("href");
        Download direct = page.waitForDownload(() -> page.evaluate("href => { window.location.href = href; }", href));
        assertThat(direct.suggestedFilename()).isEqualTo("index.html");
        assertThat(page.url()).isEqualTo(base + "/artifacts");
        assertThat(page.evaluate("() => localStorage.getItem('pwned')")).isNull();

        page.getByLabel("Search the output").fill("error");
        page.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Search").setExact(true)).click();
        page.waitForURL("**/search?node=0&q=error");
        assertThat(page.locator("table.hits tbody tr").count()).isEqualTo(2);
        assertThat(page.locator("table.hits mark").first().textContent()).isEqualTo("ERROR");
        chromium.assertNoSeriousViolations(page);
        Screenshots.fullPage(page, SCREENSHOTS.resolve("job-search.png"));

        // The first hit is in a step that succeeded, folded on the job page: following the link opens it.
        page.locator("table.hits tbody tr").first().getByRole(AriaRole.LINK).click();
        page.waitForURL(base + "?node=0#step-0-output");
        assertThat(page.locator("#step-0-output").isVisible()).isTrue();
        assertThat(page.locator("#step-0-output").textContent()).contains("ERROR: cache miss");
    }

    /** What a real run reports: two steps with coloured output, a JUnit result, two artifacts; the job fails. */
    private static void runJob(AgentClient agent, AgentClient.Claimed task) {
        String install = "Restoring cache\n\u001b[33mERROR: cache miss\u001b[0m, installing\ninstalled 214 packages\n";
        String tests = "$ ./gradlew test\n\u001b[1;31mERROR\u001b[0m ParserTest > parses_dates FAILED\n"
                + "BUILD FAILED in 12s\n";
        int installBytes = install.getBytes(StandardCharsets.UTF_8).length;
        agent.step(task, task.lease(), 0, "{\"name\": \"Install dependencies\", \"status\": \"running\", "
                + "\"output_offset\": 0}");
        agent.output(task, task.lease(), 0, install);
        agent.step(task, task.lease(), 0, "{\"name\": \"Install dependencies\", \"status\": \"success\", "
                + "\"exit_code\": 0, \"output_offset\": 0}");
        agent.step(task, task.lease(), 1, "{\"name\": \"Run the tests\", \"status\": \"running\", "
                + "\"output_offset\": " + installBytes + "}");
        agent.output(task, task.lease(), installBytes, tests);
        agent.step(task, task.lease(), 1, "{\"name\": \"Run the tests\", \"status\": \"failed\", \"exit_code\": 1, "
                + "\"output_offset\": " + installBytes + "}");
        agent.json("POST", task.path() + "/tests", """
                {"tests": [
                  {"classname": "app.ParserTest", "name": "parses_numbers", "file": "src/test/ParserTest.java",
                   "result": "success", "run_time": 0.21},
                  {"classname": "app.ParserTest", "name": "parses_dates", "file": "src/test/ParserTest.java",
                   "result": "failure", "run_time": 1.52,
                   "message": "expected: <2026-01-01> but was: <2025-12-31>\\n\\tat app.ParserTest.parses_dates\
                (ParserTest.java:42)\\n\\tat java.base/java.lang.reflect.Method.invoke(Method.java:580)"},
                  {"classname": "app.LexerTest", "name": "skips_comments", "file": "src/test/LexerTest.java",
                   "result": "skipped", "run_time": 0, "message": "not on this platform"},
                  {"classname": "app.LexerTest", "name": "lexes_strings", "file": "src/test/LexerTest.java",
                   "result": "error", "run_time": 0.48, "message": "java.lang.NullPointerException"},
                  {"classname": "app.LexerTest", "name": "reads_numbers", "file": "src/test/LexerTest.java",
                   "result": "success", "run_time": 0.05}
                ]}""", task.lease());
        agent.bytes("PUT", task.path() + "/artifacts/coverage/index.html",
                "<script>localStorage.setItem('pwned', '1')</script><h1>Coverage 87%</h1>"
                        .getBytes(StandardCharsets.UTF_8), task.lease());
        agent.bytes("PUT", task.path() + "/artifacts/build/app.jar", new byte[184_320], task.lease());
        agent.complete(task, task.lease(), "failed");
    }
}
