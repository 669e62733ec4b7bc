package dev.gantry.server;

import static dev.gantry.server.ProductRuns.test;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gantry.server.agent.AgentSettings;
import dev.gantry.server.auth.TokenKind;
import dev.gantry.server.http.PageToken;
import dev.gantry.server.project.RepositoryPolicy;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * CircleCI's Insights API over real HTTP, on runs the product made ({@link ProductRuns}): the figures, not only the
 * shapes. One history for every test, made once:
 *
 * <pre>
 *   commit 0, 10 days ago 12:00  Z success  80 s
 *   commit 1,  3 days ago 10:00  A failed  100 s   Flaky fails
 *              3 days ago 12:00  B success  60 s   (A rerun; Flaky passes: flaky)
 *   commit 2,  2 days ago 12:00  C success 120 s
 *   commit 3,  1 day ago  10:00  D failed   30 s   Broken fails
 *              1 day ago  12:00  E failed   40 s   (D rerun; Broken fails again: broken, not flaky)
 *   feature,   1 day ago  14:00  F success  10 s   (another branch)
 * </pre>
 *
 * One workflow, build-and-test, of one job, test (InsightPagesIT's config). Each run is one task of class medium,
 * charged 10 credits by the usage ledger (under a minute). Every answer is also checked against CircleCI's OpenAPI
 * document ({@code circleci-openapi/}).
 */
class InsightsApiIT {
    @RegisterExtension
    static final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension(8);
    static final String INSIGHTS = "/api/v2/insights/gh/acme/app";
    static final String WORKFLOW = INSIGHTS + "/workflows/build-and-test";

    @TempDir
    static Path home;
    @TempDir
    static Path work;

    static TestServer server;
    static ApiClient api;
    static JsonNode project;
    static String a;
    static String e;

    @BeforeAll
    static void history() {
        server = TestServer.start(pg.dataSource(), home, new ServerSettings(0, AgentSettings.defaults()
                .withPollTimeout(Duration.ofSeconds(1))).withRepositories(RepositoryPolicy.ANYTHING));
        api = server.api();
        TestRepo repo = TestRepo.init(work.resolve("app"));
        repo.write(".circleci/config.yml", InsightPagesIT.CONFIG).commit("config");
        project = server.createProject("acme", "app", repo.dir().toString()).json();
        AgentClient agent = new AgentClient(api.anonymous(), server.token(TokenKind.AGENT));
        ProductRuns runs = new ProductRuns(server, agent, agent.registered("box", 4, 8192), "gh/acme/app");

        String z = runs.finish(runs.trigger("main"), "success", test("Fast", "success", 0.1));
        runs.at(z, at(10, 12), Duration.ofSeconds(80));
        repo.write("README", "one").commit("one");
        a = runs.finish(runs.trigger("main"), "failed", test("Fast", "success", 0.1), test("Slow", "success", 5.0),
                test("Flaky", "failure", 1.0));
        runs.at(a, at(3, 10), Duration.ofSeconds(100));
        runs.at(runs.rerun(a, "success", test("Fast", "success", 0.2), test("Slow", "success", 7.0),
                test("Flaky", "success", 1.0)), at(3, 12), Duration.ofSeconds(60));
        repo.write("README", "two").commit("two");
        runs.at(runs.finish(runs.trigger("main"), "success", test("Fast", "success", 0.1),
                test("Slow", "success", 5.5), test("Flaky", "success", 1.0)), at(2, 12), Duration.ofSeconds(120));
        repo.write("README", "three").commit("three");
        String d = runs.finish(runs.trigger("main"), "failed", test("Slow", "success", 6.0),
                test("Broken", "failure", 0.5));
        runs.at(d, at(1, 10), Duration.ofSeconds(30));
        e = runs.rerun(d, "failed", test("Slow", "success", 6.0), test("Broken", "failure", 0.5));
        runs.at(e, at(1, 12), Duration.ofSeconds(40));
        repo.checkoutNewBranch("feature");
        repo.write("README", "feature").commit("feature");
        runs.at(runs.finish(runs.trigger("feature"), "success", test("Fast", "success", 0.1)), at(1, 14),
                Duration.ofSeconds(10));
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void workflow_metrics_count_runs_successes_recoveries_credits_and_durations_of_the_default_branch() {
        JsonNode page = ok(INSIGHTS + "/workflows");

        assertThat(page.path("next_page_token").isNull()).isTrue();
        assertThat(page.path("items")).hasSize(1);
        JsonNode workflow = page.path("items").get(0);
        assertThat(workflow.path("name").asText()).isEqualTo("build-and-test");
        assertThat(workflow.path("project_id").asText()).isEqualTo(project.path("id").asText());
        assertThat(workflow.path("window_start").asText()).isEqualTo(at(10, 12).toString().replace("Z", ".000Z"));
        assertThat(workflow.path("window_end").asText()).isEqualTo(at(1, 12).toString().replace("Z", ".000Z"));
        JsonNode metrics = workflow.path("metrics");
        // main only (the default branch): Z, A, B, C, D, E; successes Z 80 s, B 60 s, C 120 s.
        assertThat(metrics.path("total_runs").asLong()).isEqualTo(6);
        assertThat(metrics.path("successful_runs").asLong()).isEqualTo(3);
        assertThat(metrics.path("failed_runs").asLong()).isEqualTo(3);
        assertThat(metrics.path("success_rate").asDouble()).isEqualTo(0.5);
        assertThat(metrics.path("throughput").asDouble()).isCloseTo(6 / 90.0, within(1e-9));
        assertThat(metrics.path("total_credits_used").asLong()).isEqualTo(60);
        // A failed at 10:01:40 and B, its rerun, recovered at 12:01:00; D and E have not recovered.
        assertThat(metrics.path("total_recoveries").asLong()).isEqualTo(1);
        assertThat(metrics.path("mttr").asLong()).isEqualTo(7160);
        JsonNode durations = metrics.path("duration_metrics");
        assertThat(durations.path("min").asLong()).isEqualTo(60);
        assertThat(durations.path("median").asLong()).isEqualTo(80);
        assertThat(durations.path("p95").asLong()).isEqualTo(120);
        assertThat(durations.path("max").asLong()).isEqualTo(120);
        assertThat(durations.path("mean").asLong()).isEqualTo(87);
        assertThat(durations.path("standard_deviation").asDouble()).isCloseTo(24.944, within(0.001));

        JsonNode all = ok(INSIGHTS + "/workflows?all-branches=true").path("items").get(0).path("metrics");
        assertThat(all.path("total_runs").asLong()).isEqualTo(7);
        assertThat(all.path("duration_metrics").path("min").asLong()).isEqualTo(10);
        JsonNode feature = ok(INSIGHTS + "/workflows?branch=feature").path("items").get(0).path("metrics");
        assertThat(feature.path("total_runs").asLong()).isEqualTo(1);
        assertThat(feature.path("total_credits_used").asLong()).isEqualTo(10);
        JsonNode week = ok(INSIGHTS + "/workflows?reporting-window=last-7-days").path("items").get(0);
        assertThat(week.path("metrics").path("total_runs").asLong()).isEqualTo(5);
        assertThat(week.path("metrics").path("throughput").asDouble()).isCloseTo(5 / 7.0, within(1e-9));
        // D and E, yesterday at 10:00 and 12:00, are within the last 24 hours until 10:00 and 12:00 today.
        long lastDay = Stream.of(at(1, 10), at(1, 12)).filter(t -> t.isAfter(Instant.now().minus(Duration.ofHours(24))))
                .count();
        assertThat(ok(INSIGHTS + "/workflows?reporting-window=last-24-hours").path("items").path(0).path("metrics")
                .path("total_runs").asLong()).isEqualTo(lastDay);
    }

    @Test
    void recent_runs_list_each_run_newest_first_with_its_duration_credits_and_status() {
        JsonNode runs = ok(WORKFLOW).path("items");

        assertThat(runs.findValuesAsText("status")).containsExactly("failed", "failed", "success", "success",
                "failed", "success");
        assertThat(runs.findValuesAsText("duration")).containsExactly("40", "30", "120", "60", "100", "80");
        assertThat(runs.findValuesAsText("credits_used")).containsOnly("10");
        assertThat(runs.findValuesAsText("branch")).containsOnly("main");
        assertThat(runs.findValuesAsText("is_approval")).containsOnly("false");
        JsonNode newest = runs.get(0);
        assertThat(newest.path("id").asText()).isEqualTo(e);
        assertThat(newest.path("created_at").asText()).isEqualTo(at(1, 12).toString().replace("Z", ".000Z"));
        assertThat(newest.path("stopped_at").asText()).isEqualTo(at(1, 12).plusSeconds(40).toString()
                .replace("Z", ".000Z"));

        // A page token holds the last run's creation and id: the next page starts after C.
        JsonNode c = runs.get(2);
        String afterC = PageToken.after(c.path("created_at").asText(), c.path("id").asText()).encode();
        assertThat(ok(WORKFLOW + "?page-token=" + afterC).path("items").findValuesAsText("duration"))
                .containsExactly("60", "100", "80");

        String since = LocalDate.now(ZoneOffset.UTC).minusDays(2).toString();
        assertThat(ok(WORKFLOW + "?start-date=" + since).path("items").findValuesAsText("duration"))
                .containsExactly("40", "30", "120");
        assertThat(ok(WORKFLOW + "?start-date=" + at(10, 0) + "&end-date=" + at(3, 11)).path("items")
                .findValuesAsText("duration")).containsExactly("100", "80");
        assertThat(ok(WORKFLOW + "?all-branches=true").path("items").get(0).path("branch").asText())
                .isEqualTo("feature");
        assertThat(ok(INSIGHTS + "/workflows/nothing").path("items")).isEmpty();
    }

    @Test
    void job_metrics_count_the_workflows_jobs_by_name() {
        JsonNode jobs = ok(WORKFLOW + "/jobs").path("items");

        assertThat(jobs).hasSize(1);
        JsonNode metrics = jobs.get(0).path("metrics");
        assertThat(jobs.get(0).path("name").asText()).isEqualTo("test");
        assertThat(metrics.path("total_runs").asLong()).isEqualTo(6);
        assertThat(metrics.path("successful_runs").asLong()).isEqualTo(3);
        assertThat(metrics.path("failed_runs").asLong()).isEqualTo(3);
        assertThat(metrics.path("success_rate").asDouble()).isEqualTo(0.5);
        assertThat(metrics.path("total_credits_used").asLong()).isEqualTo(60);
        assertThat(metrics.path("duration_metrics").path("median").asLong()).isEqualTo(80);
        assertThat(metrics.path("duration_metrics").path("p95").asLong()).isEqualTo(120);
        assertThat(ok(WORKFLOW + "/jobs?job-name=es").path("items")).hasSize(1);
        assertThat(ok(WORKFLOW + "/jobs?job-name=deploy").path("items")).isEmpty();
    }

    @Test
    void the_summary_compares_the_window_with_the_one_before() {
        JsonNode summary = ok(WORKFLOW + "/summary?reporting-window=last-7-days");

        JsonNode metrics = summary.path("metrics");
        assertThat(metrics.path("total_runs").asLong()).isEqualTo(5);
        assertThat(metrics.path("completed_runs").asLong()).isEqualTo(5);
        assertThat(metrics.path("success_rate").asDouble()).isEqualTo(0.4);
        assertThat(metrics.path("duration_metrics").path("median").asLong()).isEqualTo(60);
        // The week before holds Z alone: one successful run of 80 s, 10 credits.
        JsonNode trends = summary.path("trends");
        assertThat(trends.path("total_runs").asDouble()).isEqualTo(4.0);
        assertThat(trends.path("success_rate").asDouble()).isCloseTo(-0.6, within(1e-9));
        assertThat(trends.path("median_duration_secs").asDouble()).isEqualTo(-0.25);
        assertThat(trends.path("p95_duration_secs").asDouble()).isEqualTo(0.5);
        assertThat(trends.path("total_credits_used").asDouble()).isEqualTo(4.0);
        assertThat(trends.path("failed_runs").asDouble()).as("nothing failed before").isEqualTo(0.0);
        assertThat(summary.path("workflow_names").toString()).isEqualTo("[\"build-and-test\"]");
    }

    @Test
    void test_metrics_cover_the_latest_runs_with_the_most_failed_slowest_and_flaky_tests() {
        JsonNode metrics = ok(WORKFLOW + "/test-metrics");

        // Z, A, B, C, D, E: 1 + 3 + 3 + 3 + 2 + 2 results.
        assertThat(metrics.path("total_test_runs").asLong()).isEqualTo(14);
        assertThat(metrics.path("average_test_count").asLong()).isEqualTo(2);
        JsonNode failed = metrics.path("most_failed_tests");
        assertThat(failed.findValuesAsText("test_name")).containsExactly("Broken", "Flaky");
        assertThat(failed.findValuesAsText("failed_runs")).containsExactly("2", "1");
        assertThat(failed.findValuesAsText("flaky")).containsExactly("false", "true");
        JsonNode slowest = metrics.path("slowest_tests");
        assertThat(slowest.findValuesAsText("test_name")).containsExactly("Slow", "Flaky", "Broken", "Fast");
        assertThat(slowest.get(0).path("p95_duration").asDouble()).isEqualTo(7.0);
        assertThat(slowest.get(0).path("total_runs").asLong()).isEqualTo(5);
        assertThat(slowest.get(0).path("job_name").asText()).isEqualTo("test");
        assertThat(slowest.get(0).path("classname").asText()).isEqualTo("app.Tests");
        JsonNode runs = metrics.path("test_runs");
        assertThat(runs).hasSize(6);
        JsonNode ofA = runs.get(4);
        assertThat(ofA.path("workflow_id").asText()).isEqualTo(a);
        assertThat(ofA.path("success_rate").asDouble()).isCloseTo(2 / 3.0, within(1e-6));
        assertThat(ofA.path("test_counts").toString())
                .isEqualTo("{\"error\":0,\"failure\":1,\"skipped\":0,\"success\":2,\"total\":3}");
    }

    @Test
    void flaky_tests_are_those_that_passed_and_failed_on_one_commit_on_any_branch() {
        JsonNode answer = ok(INSIGHTS + "/flaky-tests");

        assertThat(answer.path("total-flaky-tests").asInt()).isEqualTo(1);
        JsonNode flaky = answer.path("flaky-tests").get(0);
        assertThat(flaky.path("test-name").asText()).isEqualTo("Flaky");
        assertThat(flaky.path("classname").asText()).isEqualTo("app.Tests");
        assertThat(flaky.path("job-name").asText()).isEqualTo("test");
        assertThat(flaky.path("times-flaked").asLong()).isEqualTo(1);
        assertThat(flaky.path("time-wasted").asLong()).isEqualTo(1);
        assertThat(flaky.path("workflow-id").asText()).as("where it failed").isEqualTo(a);
        assertThat(flaky.path("workflow-name").asText()).isEqualTo("build-and-test");
        assertThat(flaky.path("pipeline-number").asLong()).isEqualTo(2);
        assertThat(flaky.path("job-number").asLong()).isEqualTo(2);
    }

    @Test
    void branches_are_those_with_runs() {
        JsonNode answer = ok(INSIGHTS + "/branches");

        assertThat(answer.path("branches").toString()).isEqualTo("[\"feature\",\"main\"]");
        assertThat(answer.path("project_id").asText()).isEqualTo(project.path("id").asText());
        assertThat(answer.path("org_id").asText()).isEqualTo(project.path("organization_id").asText());
        assertThat(ok(INSIGHTS + "/branches?workflow-name=deploy").path("branches")).isEmpty();
    }

    @Test
    @Timeout(60) // without the bulkhead and the timeout, the reads below would wait as long as the lock is held
    void reads_share_a_small_bulkhead_and_a_statement_timeout_so_viewers_never_hold_the_main_pool() throws Exception {
        server.createProject("acme", "other");
        String other = "/api/v2/insights/gh/acme/other/workflows";
        try (Connection locker = pg.dataSource().getConnection()) {
            locker.setAutoCommit(false);
            try (Statement lock = locker.createStatement()) { // every read of runs waits behind this
                lock.execute("LOCK TABLE gantry.workflow IN ACCESS EXCLUSIVE MODE");
            }
            long began = System.nanoTime();
            List<CompletableFuture<ApiClient.Answer>> admitted = Stream.of(INSIGHTS + "/workflows",
                    INSIGHTS + "/workflows", other).map(path -> CompletableFuture.supplyAsync(() -> api.get(path)))
                    .toList();
            await().atMost(Duration.ofSeconds(5)).until(() -> waitingReads() == 3);

            ApiClient.Answer thirdOfProject = api.get(INSIGHTS + "/workflows");
            assertThat(thirdOfProject.status()).as("two reads of one project at most").isEqualTo(503);
            assertThat(thirdOfProject.header("Retry-After")).isEqualTo("5");
            assertThat(thirdOfProject.json().get("message").asText()).contains("too many insights reads under way");
            assertThat(api.get("/api/v2/insights/gh/acme/other/branches").status()).as("three reads at most")
                    .isEqualTo(503);
            assertThat(api.get("/api/v2/me").status()).as("the rest of the API answers").isEqualTo(200);

            for (CompletableFuture<ApiClient.Answer> read : admitted) {
                assertThat(read.get(30, TimeUnit.SECONDS).status()).as("cut off by the statement timeout")
                        .isEqualTo(503);
            }
            assertThat(Duration.ofNanos(System.nanoTime() - began)).isBetween(Duration.ofSeconds(10),
                    Duration.ofSeconds(20));
            locker.rollback();
        }
        assertThat(api.get(INSIGHTS + "/workflows").status()).as("the bulkhead's places came back").isEqualTo(200);
    }

    private static long waitingReads() {
        return server.jdbi().withHandle(h -> h.createQuery("""
                SELECT count(*) FROM pg_stat_activity
                WHERE wait_event_type = 'Lock' AND query LIKE '%gantry.workflow_run%'""").mapTo(Long.class).one());
    }

    @Test
    void circleci_id_slugs_and_gantry_slugs_name_the_same_project() {
        String byIds = "/api/v2/insights/circleci/" + project.path("organization_id").asText() + "/"
                + project.path("id").asText();

        assertThat(ok(byIds + "/workflows").path("items").get(0).path("metrics").path("total_runs").asLong())
                .isEqualTo(6);
        assertThat(ok("/api/v2/insights/gantry/acme/app/workflows").path("items")).hasSize(1);
    }

    @Test
    void every_route_answers_in_the_shape_circlecis_document_gives_it() {
        String insights = "/insights/{project-slug}";
        String workflow = insights + "/workflows/{workflow-name}";
        conforms(insights + "/workflows", INSIGHTS + "/workflows");
        conforms(workflow, WORKFLOW);
        conforms(workflow + "/jobs", WORKFLOW + "/jobs");
        conforms(workflow + "/summary", WORKFLOW + "/summary");
        conforms(workflow + "/summary", INSIGHTS + "/workflows/nothing/summary");
        conforms(workflow + "/test-metrics", WORKFLOW + "/test-metrics");
        conforms(insights + "/flaky-tests", INSIGHTS + "/flaky-tests");
        conforms(insights + "/branches", INSIGHTS + "/branches");
    }

    @Test
    void bad_parameters_and_unknown_projects_are_json_errors_naming_what_is_wrong() {
        assertError(INSIGHTS + "/workflows?reporting-window=last-3-days", 400, "reporting-window");
        assertError(INSIGHTS + "/workflows?branch=main&all-branches=true", 400, "all-branches");
        assertError(INSIGHTS + "/workflows?all-branches=yes", 400, "all-branches");
        assertError(INSIGHTS + "/workflows?page-token=nonsense", 400, "page-token");
        assertError(WORKFLOW + "?start-date=yesterday", 400, "start-date");
        assertError(WORKFLOW + "?end-date=2026-12-01T00:00:00Z", 400, "end-date");
        assertError(WORKFLOW + "?start-date=2026-01-01T00:00:00Z&end-date=2026-06-01T00:00:00Z", 400, "end-date");
        assertError(WORKFLOW + "?page-token=WyJ4IiwieSJd", 400, "page-token"); // ["x","y"]: not a time and an id
        assertError("/api/v2/insights/gh/acme/nothing/workflows", 404, null);
        assertError("/api/v2/insights/gh/acme/nothing/flaky-tests", 404, null);
    }

    // ---- helpers ----

    /** {@code days} UTC days ago at {@code hour}:00. */
    private static Instant at(int days, int hour) {
        return LocalDate.now(ZoneOffset.UTC).minusDays(days).atTime(hour, 0).toInstant(ZoneOffset.UTC);
    }

    private static void conforms(String operation, String path) {
        JsonNode body = ok(path);
        assertThat(CircleciApiContractIT.CIRCLECI.problems(CircleciApiContractIT.CIRCLECI.response("GET", operation,
                200), body, Set.of())).as("GET " + path + " answered " + body).isEmpty();
    }

    private static JsonNode ok(String path) {
        ApiClient.Answer answer = api.get(path);
        assertThat(answer.status()).as(path + ": " + answer.body()).isEqualTo(200);
        return answer.json();
    }

    private static void assertError(String path, int status, String field) {
        ApiClient.Answer answer = api.get(path);
        assertThat(answer.status()).as(path + ": " + answer.body()).isEqualTo(status);
        assertThat(answer.json().path("message").asText()).as(path).isNotBlank();
        if (field != null) {
            assertThat(answer.json().path("field").asText()).as(path).isEqualTo(field);
        }
    }
}
