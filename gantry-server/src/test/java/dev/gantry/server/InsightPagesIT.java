package dev.gantry.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gantry.scheduler.fleet.FleetConfig;
import dev.gantry.scheduler.fleet.SimulatedProvider;
import dev.gantry.server.agent.AgentSettings;
import dev.gantry.server.auth.TokenKind;
import dev.gantry.server.fleet.Autoscaling;
import dev.gantry.server.project.RepositoryPolicy;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.time.LocalDate;
import java.time.ZoneOffset;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fleet, queues and insights pages over real HTTP, on data the product made: pipelines planned from a real git
 * repository, run by an agent through the agent API with test results, rerun through the API; a fleet whose
 * autoscaler (the server's, on a simulated cloud whose first-choice type is short) falls back to the next type.
 */
class InsightPagesIT {
    @RegisterExtension
    static final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension(16);

    /** A cluster of its own pool, so its instances (which never come up: the cloud is simulated) take no job. */
    static final String FLEET = """
            clusters:
              - name: burst
                pool: burst
                min: 1
                max: 2
                types:
                  - {name: big, vcpu: 8, memory_gb: 16, disk_gb: 80}
                  - {name: small, vcpu: 2, memory_gb: 4, disk_gb: 20}
            """;
    static final String CONFIG = """
            version: 2.1
            jobs:
              test:
                docker: [{image: cimg/base:2024.01}]
                steps: [{run: make test}]
            workflows:
              build-and-test:
                jobs: [test]
            """;

    @TempDir
    static Path home;
    @TempDir
    Path work;

    static TestServer server;
    static ApiClient api;
    static UiPages ui;
    TestRepo repo;
    AgentClient agent;
    String agentId;
    ProductRuns runs;

    @BeforeAll
    static void start() {
        Autoscaling.Setup fleet = new Autoscaling.Setup(FleetConfig.parse("fleet.yml", FLEET), url -> {
            SimulatedProvider cloud = new SimulatedProvider(InstantSource.system(), 1, Duration.ofMinutes(5),
                    Duration.ofMinutes(10), 0);
            cloud.setCapacity("burst", "big", 0); // the first choice is short, as in the October 21 incident
            return cloud;
        });
        server = TestServer.startAutoscaling(pg.dataSource(), home, new ServerSettings(0, AgentSettings.defaults()
                .withPollTimeout(Duration.ofSeconds(1))).withRepositories(RepositoryPolicy.ANYTHING), fleet);
        api = server.api();
        ui = new UiPages(api.baseUrl());
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @BeforeEach
    void clean() {
        pg.truncate("gantry.project", "gantry.agent", "gantry.pool_pause", "gantry_queue.message",
                "gantry.ui_session");
        repo = TestRepo.init(work.resolve("app"));
        repo.write(".circleci/config.yml", CONFIG).commit("config");
        server.createProject("acme", "app", repo.dir().toString());
        agent = new AgentClient(api.anonymous(), server.token(TokenKind.AGENT));
        agentId = agent.registered("box", 4, 8192);
        runs = new ProductRuns(server, agent, agentId, "gantry/acme/app");
    }

    @Test
    void insights_show_each_workflows_runs_success_rate_and_durations_per_day_and_the_slowest_and_flaky_tests()
            throws Exception {
        LocalDate today = LocalDate.now(ZoneOffset.UTC);
        // Commit 1, three days ago: Flaky fails, and passes when the workflow is rerun on the same commit.
        String first = trigger();
        String failed = finish(first, "failed", ProductRuns.test("Fast", "success", 0.1), ProductRuns.test("Slow", "success", 5.0),
                ProductRuns.test("Flaky", "failure", 1.0));
        at(failed, today.minusDays(3), Duration.ofSeconds(100));
        String rerun = rerun(failed, "success", ProductRuns.test("Fast", "success", 0.2), ProductRuns.test("Slow", "success", 7.0),
                ProductRuns.test("Flaky", "success", 1.0));
        at(rerun, today.minusDays(3), Duration.ofSeconds(60));
        // Commit 2, two days ago: all pass.
        repo.write("README", "two").commit("two");
        at(finish(trigger(), "success", ProductRuns.test("Fast", "success", 0.1), ProductRuns.test("Slow", "success", 5.5),
                ProductRuns.test("Flaky", "success", 1.0)), today.minusDays(2), Duration.ofSeconds(120));
        // Commit 3, yesterday: Broken fails twice on the same commit, which is broken, not flaky.
        repo.write("README", "three").commit("three");
        String broken = finish(trigger(), "failed", ProductRuns.test("Slow", "success", 6.0), ProductRuns.test("Broken", "failure", 0.5));
        at(broken, today.minusDays(1), Duration.ofSeconds(30));
        at(rerun(broken, "failed", ProductRuns.test("Slow", "success", 6.0), ProductRuns.test("Broken", "failure", 0.5)),
                today.minusDays(1), Duration.ofSeconds(40));
        String session = ui.signIn(server.token(TokenKind.ADMIN));

        HttpResponse<String> page = ui.get("/insights/gantry/acme/app", session);

        assertThat(page.statusCode()).isEqualTo(200);
        String html = UiPages.flat(page.body());
        // 5 runs, 2 successful; durations of the successful ones only: 60 s and 120 s.
        assertThat(html).contains("<th scope=\"row\"><a href=\"#workflow-1\">build-and-test</a></th>"
                + "<td>5</td><td>40%</td><td>1m 00s</td><td>2m 00s</td>");
        assertThat(html).contains(day(today.minusDays(3)) + "<td>2</td><td>1</td><td>50%</td><td>1m 00s</td>"
                + "<td>1m 00s</td>");
        assertThat(html).contains(day(today.minusDays(2)) + "<td>1</td><td>1</td><td>100%</td><td>2m 00s</td>");
        assertThat(html).contains(day(today.minusDays(1)) + "<td>2</td><td>0</td><td>0%</td><td></td><td></td>");
        assertThat(html).contains(day(today.minusDays(4)) + "<td>0</td><td>0</td><td></td>");
        assertThat(html).contains("role=\"img\" aria-label=\"Success rate of build-and-test per day, "
                + today.minusDays(29) + " to " + today + ": 3 of 30 with a value, from 0% to 100%, last 0%.\"");
        assertThat(html).contains("<title>Duration of successful build-and-test runs per day</title>");
        // Slow's run times: 5, 5.5, 6, 6, 7 s.
        assertThat(html).contains("<th scope=\"row\"><code>app.Tests</code> Slow</th><td>test</td><td>5</td>"
                + "<td>0</td><td>6.0s</td><td>7.0s</td>");
        assertThat(html.indexOf("</code> Slow</th>")).isLessThan(html.indexOf("</code> Fast</th>"));
        assertThat(html).contains("<th scope=\"row\"><code>app.Tests</code> Flaky</th><td>test</td><td>1</td>"
                + "<td>1</td>");
        String flaky = html.substring(html.indexOf("Flakiest tests"));
        assertThat(flaky).doesNotContain("Broken");

        String week = UiPages.flat(ui.get("/insights/gantry/acme/app?days=7&branch=main", session).body());
        assertThat(week).contains("<option value=\"7\" selected>").contains("3 of 7 with a value");
        assertThat(UiPages.flat(ui.get("/insights/gantry/acme/app?branch=elsewhere", session).body()))
                .contains("No workflow finished in this window.").contains("No flaky test in this window");
        assertThat(ui.get("/pipelines/gantry/acme/app", session).body()).contains("href=\"/insights/gantry/acme/app\"");
    }

    @Test
    void the_fleet_page_shows_instances_by_pool_and_size_and_the_autoscalers_fallback_past_a_short_type()
            throws Exception {
        trigger();
        AgentClient.Claimed running = claim();
        await().atMost(Duration.ofSeconds(30)).until(() -> api.get("/api/v2/insights/fleet").json()
                .path("events").toString().contains("\"launched\""));
        String admin = ui.signIn(server.token(TokenKind.ADMIN));

        String html = UiPages.flat(ui.get("/fleet", admin).body());

        // The agent runs one medium task (2 vCPU, 4 GB) of its 4 vCPU and 8 GB; the autoscaler's small instance is
        // still starting.
        assertThat(html).contains("<th scope=\"row\">default</th><td>4 vCPU · 8 GB</td><td>1</td><td>1</td><td>0</td>"
                + "<td>0</td><td>1</td><td>0</td><td>1</td><td>2 of 4 <span class=\"muted\">(50%)</span></td>"
                + "<td>50%</td>");
        assertThat(html).contains("<th scope=\"row\">burst</th><td>2 vCPU · 4 GB</td><td>1</td><td>0</td><td>1</td>"
                + "<td>0</td><td>0</td><td>0</td><td>0</td><td>0 of 0</td><td></td>");
        assertThat(html).containsPattern("insufficient capacity</span></td><td>burst / big</td>");
        assertThat(html).containsPattern("launched</span></td><td>burst / small</td><td><code>burst-\\d+</code>");
        assertThat(html).contains("Each instance").contains("agent box").contains(agentId);
        JsonNode shapes = api.get("/api/v2/insights/fleet").json().path("shapes");
        assertThat(shapes.toString()).as("the API shows the same figures").contains(
                "{\"pool\":\"default\",\"vcpu\":4,\"memory_mb\":8192,\"instances\":1,\"ready\":1,\"provisioning\":0,"
                + "\"draining\":0,\"busy\":1,\"idle\":0,\"tasks\":1,\"vcpu_held\":2,\"vcpu_total\":4,"
                + "\"memory_held_mb\":4096,\"memory_total_mb\":8192}");

        String memberToken = memberToken();
        String member = UiPages.flat(ui.get("/fleet", ui.signIn(memberToken)).body());
        assertThat(member).contains("2 of 4").contains("launched").doesNotContain("Each instance")
                .doesNotContain("agent box");
        JsonNode memberFleet = api.withToken(memberToken).get("/api/v2/insights/fleet").json();
        assertThat(memberFleet.path("shapes").toString()).as("the API shows a member what the page does")
                .contains("\"pool\":\"default\"");
        assertThat(memberFleet.path("events").toString()).contains("\"launched\"");
        assertThat(memberFleet.path("instances")).isEmpty();
        assertThat(memberFleet.path("leader").isNull()).isTrue();
        agent.complete(running, running.lease(), "success");
    }

    @Test
    void the_queues_page_shows_each_class_and_pool_its_waiting_tasks_the_pause_and_why() throws Exception {
        trigger();
        AgentClient.Claimed running = claim();
        assertThat(api.post("/api/v2/fleet/pools/default/pause", "{\"reason\": \"provider maintenance\"}").status())
                .isEqualTo(200);
        repo.write("README", "two").commit("two");
        trigger();
        await().atMost(Duration.ofSeconds(20)).until(() -> api.get("/api/v2/insights/queue").json()
                .path("items").toString().contains("\"pending\":1"));
        // A work queue of its own, limited and resumed with a ramp, as an operator lets a backlog back in.
        assertThat(api.put("/api/v2/admin/queues/reports/limits", "{\"max_running\": 10}").status()).isEqualTo(200);
        assertThat(api.post("/api/v2/admin/queues/reports/pause", "").status()).isEqualTo(200);
        assertThat(api.post("/api/v2/admin/queues/reports/resume",
                "{\"ramp\": {\"from\": 0.1, \"over_seconds\": 600}}").status()).isEqualTo(200);
        String admin = ui.signIn(server.token(TokenKind.ADMIN));

        String html = UiPages.flat(ui.get("/queues", admin).body());

        assertThat(html).containsPattern("<th scope=\"row\" rowspan=\"1\">medium</th><td>default</td><td>1</td>"
                + "<td>[^<]+</td><td><span class=\"status s-on_hold\">paused</span> since <time datetime=\"[^\"]+\">"
                + "[^<]+</time>: provider maintenance</td><td>1 queue paused</td><td rowspan=\"1\">[^<]+ / [^<]+</td><td rowspan=\"1\">2</td>");
        assertThat(html).contains("The server's work queues").containsPattern("<th scope=\"row\">reports</th>"
                + "<td>0</td><td>0</td><td>0</td><td>0.0s</td><td><span class=\"status s-running\">ramping</span> "
                + "from 10% of its limits to all of them by <time[^>]+>[^<]+</time>; at most 10 at once</td>");
        String member = UiPages.flat(ui.get("/queues", ui.signIn(memberToken())).body());
        assertThat(member).contains("provider maintenance").doesNotContain("work queues");
        agent.complete(running, running.lease(), "success");
    }

    @Test
    void a_project_of_another_organization_has_no_insights_for_you_and_a_page_needs_a_session() throws Exception {
        server.createProject("other", "app");
        String member = ui.signIn(memberToken());

        assertThat(ui.get("/insights/gantry/acme/app", member).statusCode()).isEqualTo(200);
        assertThat(ui.get("/insights/gantry/other/app", member).statusCode()).isEqualTo(404);
        assertThat(ui.get("/insights/gantry/acme/nothing", member).statusCode()).isEqualTo(404);
        assertThat(ui.get("/fleet", null).statusCode()).isEqualTo(302);
        assertThat(ui.get("/queues", null).statusCode()).isEqualTo(302);
        assertThat(ui.get("/insights/gantry/acme/app", null).statusCode()).isEqualTo(302);
        assertThat(ui.get("/projects", member).body()).contains("href=\"/fleet\"").contains("href=\"/queues\"");
    }

    /** Triggers a pipeline on main and returns its id. */
    private String trigger() {
        return runs.trigger("main");
    }

    private AgentClient.Claimed claim() {
        return runs.claim();
    }

    private String finish(String pipeline, String status, String... tests) {
        return runs.finish(pipeline, status, tests);
    }

    private String rerun(String workflow, String status, String... tests) {
        return runs.rerun(workflow, status, tests);
    }

    /** Moves a finished workflow and its jobs to noon of {@code day}, lasting {@code took}. */
    private void at(String workflow, LocalDate day, Duration took) {
        runs.at(workflow, day.atTime(12, 0).toInstant(ZoneOffset.UTC), took);
    }

    // ---- the pages ----

    /** A member of acme (a user the admin made, with a token of its own). */
    private static String memberToken() {
        api.post("/api/v2/user", "{\"login\": \"dev\"}"); // 201, or 409 when an earlier test made it
        assertThat(api.put("/api/v2/organization/acme/member/dev", "{\"role\": \"member\"}").status())
                .isLessThan(300);
        ApiClient.Answer token = api.post("/api/v2/user/dev/token", "{\"label\": \"pages\"}");
        assertThat(token.status()).as(token.body()).isEqualTo(201);
        return token.text("token");
    }

    private static String day(LocalDate day) {
        return "<tr><th scope=\"row\">" + day + "</th>";
    }




}
