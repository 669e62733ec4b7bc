package dev.gantry.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.microsoft.playwright.Page;
import com.microsoft.playwright.options.AriaRole;
import dev.gantry.scheduler.fleet.FleetConfig;
import dev.gantry.scheduler.fleet.SimulatedProvider;
import dev.gantry.server.agent.AgentSettings;
import dev.gantry.server.auth.TokenKind;
import dev.gantry.server.fleet.Autoscaling;
import dev.gantry.testkit.BrowserExtension;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import dev.gantry.testkit.Screenshots;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fleet, queues and insights pages in a real browser (Debian's Chromium through Playwright): reached from the
 * header's links and the project's pipelines, checked by axe-core, photographed for docs/ui.md; and the time the
 * pages take on a month of history (1,200 workflows, 60,000 test results), measured and printed.
 */
class InsightPagesBrowserIT {
    @RegisterExtension
    static final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension(8);
    @RegisterExtension
    static final BrowserExtension chromium = new BrowserExtension();
    private static final Path SCREENSHOTS = Path.of("..", "docs", "ui");
    static final int DAYS = 30;
    static final int RUNS_A_DAY = 40;
    static final int TESTS_A_RUN = 50;

    @TempDir
    static Path home;

    static TestServer server;

    @BeforeAll
    static void start() {
        Autoscaling.Setup fleet = new Autoscaling.Setup(FleetConfig.parse("fleet.yml", InsightPagesIT.FLEET),
                url -> {
                    SimulatedProvider cloud = new SimulatedProvider(InstantSource.system(), 1, Duration.ofMinutes(5),
                            Duration.ofMinutes(10), 0);
                    cloud.setCapacity("burst", "big", 0);
                    return cloud;
                });
        server = TestServer.startAutoscaling(pg.dataSource(), home, new ServerSettings(0, AgentSettings.defaults()
                .withPollTimeout(Duration.ofSeconds(1))), fleet);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void a_user_follows_the_links_to_the_fleet_the_queues_and_a_projects_insights() throws Exception {
        RunFixtures runs = new RunFixtures(server.jdbi());
        history(runs);
        commitPerPipeline(new RunFixtures(server.jdbi(), "busy"));
        UUID workflow = runs.workflow("build-and-test");
        runs.queuedAgo(runs.job(workflow, "build").insert(), Duration.ofSeconds(40));
        AgentClient agent = new AgentClient(server.api().anonymous(), server.token(TokenKind.AGENT));
        String agentId = agent.registered("box", 4, 8192);
        AgentClient.Claimed running = AgentClient.claimed(agent.claim(agentId, 4, 8192));
        server.api().post("/api/v2/fleet/pools/default/pause", "{\"reason\": \"provider maintenance\"}");
        runs.queuedAgo(runs.job(workflow, "test").resourceClass("large", 4, 8192).insert(), Duration.ofSeconds(95));
        await().atMost(Duration.ofSeconds(30)).until(() -> server.api().get("/api/v2/insights/fleet").json()
                .path("events").toString().contains("\"launched\""));
        Page page = chromium.newPage();
        page.navigate(server.api().baseUrl() + "/projects");
        page.getByLabel("API token").fill(server.token(TokenKind.ADMIN));
        page.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Sign in")).click();
        page.waitForURL("**/projects");

        agent.heartbeat(running, running.lease()); // the agent is live, as a running one is
        page.getByRole(AriaRole.NAVIGATION, new Page.GetByRoleOptions().setName("Site"))
                .getByText("Fleet").click();
        page.waitForURL("**/fleet");
        assertThat(page.locator("text=agent box").count()).isPositive();
        assertThat(page.locator("text=insufficient capacity").count()).isPositive();
        chromium.assertNoSeriousViolations(page);
        Screenshots.fullPage(page, SCREENSHOTS.resolve("fleet.png"));

        page.getByRole(AriaRole.NAVIGATION, new Page.GetByRoleOptions().setName("Site"))
                .getByText("Queues").click();
        page.waitForURL("**/queues");
        assertThat(page.locator("text=provider maintenance").count()).isPositive();
        chromium.assertNoSeriousViolations(page);
        Screenshots.fullPage(page, SCREENSHOTS.resolve("queues.png"));

        page.navigate(server.api().baseUrl() + "/pipelines/gantry/acme/app");
        page.getByText("Insights", new Page.GetByTextOptions().setExact(true)).click();
        page.waitForURL("**/insights/gantry/acme/app");
        assertThat(page.locator("svg[role=img]").count()).isEqualTo(4);
        page.locator("details summary").first().click(); // the figures per day, checked open and shown closed
        chromium.assertNoSeriousViolations(page);
        page.locator("details summary").first().click();
        Screenshots.fullPage(page, SCREENSHOTS.resolve("insights.png"));

        measure(List.of("/insights/gantry/acme/app", "/insights/gantry/acme/app?days=90",
                "/insights/gantry/busy/app", "/fleet", "/queues"));
    }

    /**
     * The other shape of a month: a commit per pipeline (1,200 pipelines, one workflow each, with a job of
     * {@value #TESTS_A_RUN} test results), one pipeline in ten rerun on its commit, where test_7 failed and then
     * passed (flaky); test_3 fails now and then. Statistics gathered.
     */
    private static void commitPerPipeline(RunFixtures runs) {
        server.jdbi().useHandle(h -> {
            h.execute("""
                    INSERT INTO gantry.pipeline (id, project_id, number, state, branch, revision, parameters,
                                                 request_hash, created_at, updated_at)
                    SELECT gen_random_uuid(), ?, 100 + d, 'created', 'main', md5('busy' || d), '{}', '\\x00',
                           now() - d * interval '30 minutes', now() - d * interval '30 minutes'
                    FROM generate_series(1, ?) d""", runs.projectId, DAYS * RUNS_A_DAY);
            h.execute("""
                    INSERT INTO gantry.workflow (id, pipeline_id, name, status, created_at, stopped_at)
                    SELECT gen_random_uuid(), p.id, 'build-and-test', CASE WHEN i = 0 AND p.number % 10 = 0
                           THEN 'failed' ELSE 'success' END, p.created_at + i * interval '5 minutes',
                           p.created_at + i * interval '5 minutes' + (180 + p.number % 120) * interval '1 second'
                    FROM gantry.pipeline p CROSS JOIN generate_series(0, 1) i
                    WHERE p.project_id = ? AND p.number >= 100 AND (i = 0 OR p.number % 10 = 0)""", runs.projectId);
            h.execute("""
                    INSERT INTO gantry.job (id, workflow_id, project_id, number, name, type, status, requires,
                                            resource_class, cpu, memory_mb, executor, parallelism, spec, created_at,
                                            queued_at, started_at, stopped_at)
                    SELECT gen_random_uuid(), w.id, ?, 1000 + row_number() OVER (ORDER BY w.created_at), 'test',
                           'build', w.status, '{}', 'medium', 2, 4096, '{"type": "docker", "image": "cimg/base"}', 1,
                           '{}', w.created_at, w.created_at, w.created_at, w.stopped_at
                    FROM gantry.workflow w JOIN gantry.pipeline p ON p.id = w.pipeline_id
                    WHERE p.project_id = ? AND p.number >= 100""", runs.projectId, runs.projectId);
            h.execute("""
                    INSERT INTO gantry.test_case (job_id, node_index, seq, classname, name, file, result, run_time)
                    SELECT j.id, 0, t, 'app.Suite' || (t % 5), 'test_' || t, NULL,
                           CASE WHEN t = 7 AND j.status = 'failed' THEN 'failure'
                                WHEN t = 3 AND j.number % 37 = 0 THEN 'failure' ELSE 'success' END,
                           0.05 + (t % 10) * 0.3 + (j.number % 3) * 0.1
                    FROM gantry.job j CROSS JOIN generate_series(1, ?) t
                    WHERE j.project_id = ? AND j.number >= 1000""", TESTS_A_RUN, runs.projectId);
            h.execute("ANALYZE");
        });
    }

    /**
     * A month of history: {@value #RUNS_A_DAY} runs a day of two workflows on a commit a day, each with a job of
     * {@value #TESTS_A_RUN} test results; one in nine fails, test_7 fails now and then (flaky), durations vary by day.
     * Statistics gathered, as on a database that lived through that month.
     */
    private static void history(RunFixtures runs) {
        server.jdbi().useHandle(h -> {
            h.createUpdate("""
                    INSERT INTO gantry.pipeline (id, project_id, number, state, branch, revision, parameters,
                                                 request_hash, created_at, updated_at)
                    SELECT gen_random_uuid(), :project, 100 + d, 'created', 'main',
                           md5(d::text) || substr(md5('r' || d), 1, 8), '{}', '\\x00',
                           now() - d * interval '1 day', now() - d * interval '1 day'
                    FROM generate_series(1, :days) d""")
                    .bind("project", runs.projectId).bind("days", DAYS).execute();
            h.createUpdate("""
                    INSERT INTO gantry.workflow (id, pipeline_id, name, status, created_at, stopped_at)
                    SELECT gen_random_uuid(), p.id, CASE WHEN i % 4 = 0 THEN 'deploy' ELSE 'build-and-test' END,
                           CASE WHEN (p.number * 7 + i) % 9 = 0 THEN 'failed' ELSE 'success' END,
                           p.created_at + i * interval '10 minutes',
                           p.created_at + i * interval '10 minutes'
                               + (180 + (p.number * 13 + i * 29) % 240 + (p.number % 10) * 20) * interval '1 second'
                    FROM gantry.pipeline p CROSS JOIN generate_series(1, :runs) i
                    WHERE p.project_id = :project AND p.number >= 100""")
                    .bind("project", runs.projectId).bind("runs", RUNS_A_DAY).execute();
            h.createUpdate("""
                    INSERT INTO gantry.job (id, workflow_id, project_id, number, name, type, status, requires,
                                            resource_class, cpu, memory_mb, executor, parallelism, spec, created_at,
                                            queued_at, started_at, stopped_at)
                    SELECT gen_random_uuid(), w.id, :project, 1000 + row_number() OVER (ORDER BY w.created_at), 'test',
                           'build', w.status, '{}', 'medium', 2, 4096, '{"type": "docker", "image": "cimg/base"}', 1,
                           '{}', w.created_at, w.created_at, w.created_at, w.stopped_at
                    FROM gantry.workflow w JOIN gantry.pipeline p ON p.id = w.pipeline_id
                    WHERE p.project_id = :project AND p.number >= 100""")
                    .bind("project", runs.projectId).execute();
            h.createUpdate("""
                    INSERT INTO gantry.test_case (job_id, node_index, seq, classname, name, file, result, run_time)
                    SELECT j.id, 0, t, 'app.Suite' || (t % 5), 'test_' || t, NULL,
                           CASE WHEN t = 7 AND j.number % 6 = 0 THEN 'failure'
                                WHEN t = 3 AND j.status = 'failed' THEN 'failure' ELSE 'success' END,
                           0.05 + (t % 10) * 0.3 + (j.number % 3) * 0.1
                    FROM gantry.job j CROSS JOIN generate_series(1, :tests) t
                    WHERE j.project_id = :project AND j.number >= 1000""")
                    .bind("project", runs.projectId).bind("tests", TESTS_A_RUN).execute();
            // A month of history is never minutes old: autovacuum has gathered its statistics long since. Without
            // them the planner takes the fresh tables for nearly empty ones (docs/ui.md has both figures).
            h.execute("ANALYZE");
        });
    }

    /** Times each page over HTTP, signed in, and prints the median and p95 (a loose bound keeps it honest). */
    private static void measure(List<String> paths) throws Exception {
        HttpClient http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();
        HttpResponse<String> signIn = http.send(HttpRequest.newBuilder(URI.create(server.api().baseUrl() + "/sign-in"))
                .header("Content-Type", "application/x-www-form-urlencoded").header("Origin", server.api().baseUrl())
                .POST(HttpRequest.BodyPublishers.ofString("token=" + URLEncoder.encode(
                        server.token(TokenKind.ADMIN), StandardCharsets.UTF_8))).build(),
                HttpResponse.BodyHandlers.ofString());
        String cookie = signIn.headers().firstValue("Set-Cookie").orElseThrow().split(";", 2)[0];
        for (String path : paths) {
            List<Long> micros = new ArrayList<>();
            for (int i = 0; i < 25; i++) {
                long start = System.nanoTime();
                HttpResponse<String> page = http.send(HttpRequest.newBuilder(URI.create(server.api().baseUrl() + path))
                        .header("Cookie", cookie).build(), HttpResponse.BodyHandlers.ofString());
                long took = (System.nanoTime() - start) / 1000;
                assertThat(page.statusCode()).isEqualTo(200);
                if (i >= 5) { // the first few warm the JIT and the database's caches
                    micros.add(took);
                }
            }
            micros.sort(null);
            long median = micros.get(micros.size() / 2);
            long p95 = micros.get((int) Math.ceil(micros.size() * 0.95) - 1);
            System.out.printf("page time %s: median %.1f ms, p95 %.1f ms over %d requests%n", path, median / 1000.0,
                    p95 / 1000.0, micros.size());
            assertThat(median).as("a loose sanity bound, not a target").isLessThan(5_000_000);
        }
    }
}
