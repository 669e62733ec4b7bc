package dev.gantry.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.gantry.server.auth.TokenKind;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The web UI over real HTTP, as a browser without JavaScript uses it: sign-in, pages, actions and their guards. */
class WebUiIT {
    @RegisterExtension
    static final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension();

    @TempDir
    static Path home;

    static TestServer server;
    static HttpClient http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();
    RunFixtures runs;
    UUID workflow;

    @BeforeAll
    static void start() {
        server = TestServer.startWithoutPlanBuilder(pg.dataSource(), home);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @BeforeEach
    void clean() {
        pg.truncate("gantry.project", "gantry.ui_session");
        runs = new RunFixtures(server.jdbi());
        workflow = runs.workflow("build-and-test");
        runs.job(workflow, "build").status("success").insert();
        runs.job(workflow, "test").status("queued").requires("build").insert();
    }

    @Test
    void a_page_without_a_session_sends_the_browser_to_sign_in_and_back() throws Exception {
        HttpResponse<String> page = get("/pipelines/gantry/acme/app", null);

        assertThat(page.statusCode()).isEqualTo(302);
        assertThat(page.headers().firstValue("Location")).hasValueSatisfying(
                l -> assertThat(l).endsWith("/sign-in?next=%2Fpipelines%2Fgantry%2Facme%2Fapp"));
    }

    @Test
    void signing_in_sets_an_http_only_same_site_cookie_and_a_bad_token_says_what_is_wrong() throws Exception {
        HttpResponse<String> bad = post("/sign-in", null, "token=gnt_user_nope&next=/projects", true);
        assertThat(bad.statusCode()).isEqualTo(401);
        assertThat(bad.body()).contains("malformed API token").contains("<form");

        HttpResponse<String> good = post("/sign-in", null, "token=" + server.token(TokenKind.ADMIN)
                + "&next=/pipelines/gantry/acme/app", true);
        assertThat(good.statusCode()).isEqualTo(303);
        assertThat(good.headers().firstValue("Location").orElseThrow()).endsWith("/pipelines/gantry/acme/app");
        String cookie = good.headers().firstValue("Set-Cookie").orElseThrow();
        assertThat(cookie).startsWith("gantry_session=").contains("HttpOnly").containsIgnoringCase("SameSite=Lax");

        HttpResponse<String> foreign = http.send(HttpRequest.newBuilder(uri("/sign-in"))
                .header("Content-Type", "application/x-www-form-urlencoded").header("Origin", "https://evil.example")
                .POST(HttpRequest.BodyPublishers.ofString("token=" + server.token(TokenKind.ADMIN))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(foreign.statusCode()).isEqualTo(403);
    }

    @Test
    void the_pages_show_projects_pipelines_the_workflow_graph_and_why_a_job_waits() throws Exception {
        String session = signIn();

        assertThat(get("/projects", session).body()).contains("acme/app").contains("/pipelines/gantry/acme/app/1");
        assertThat(get("/pipelines/gantry/acme/app", session).body()).contains("#1").contains("main")
                .contains("a1b2c3d");
        String pipeline = get("/pipelines/gantry/acme/app/1", session).body();
        assertThat(pipeline).contains("<svg").contains("build-and-test").contains(">build<").contains(">test<")
                .contains("class=\"edge\"").contains("hx-trigger=\"every 1s\"");
        Matcher testJob = Pattern.compile("href=\"/jobs/gantry/acme/app/(\\d+)\">test<").matcher(pipeline);
        assertThat(testJob.find()).isTrue();
        String job = get("/jobs/gantry/acme/app/" + testJob.group(1), session).body();
        assertThat(job).contains("Why this job is waiting");
        assertThat(get("/pipelines/gantry/other/app", session).statusCode()).isEqualTo(404);
    }

    @Test
    void an_action_needs_the_sessions_csrf_token_and_is_audited() throws Exception {
        String session = signIn();
        String page = get("/pipelines/gantry/acme/app/1", session).body();
        Matcher csrf = Pattern.compile("name=\"_csrf\" value=\"([^\"]+)\"").matcher(page);
        assertThat(csrf.find()).isTrue();
        String cancel = "/pipelines/gantry/acme/app/1/workflows/" + workflow + "/cancel";

        HttpResponse<String> forged = post(cancel, session, "_csrf=wrong", true);
        assertThat(forged.statusCode()).isEqualTo(403);
        assertThat(workflowStatus()).isEqualTo("running");

        HttpResponse<String> done = post(cancel, session, "_csrf=" + csrf.group(1), true);
        assertThat(done.statusCode()).isEqualTo(303);
        assertThat(workflowStatus()).isNotEqualTo("running");
        int audited = server.jdbi().withHandle(h -> h.createQuery(
                "SELECT count(*) FROM gantry.audit_log WHERE path = :path AND actor = 'admin'")
                .bind("path", cancel).mapTo(Integer.class).one());
        assertThat(audited).as("the refused and the done cancel").isEqualTo(2);
    }

    @Test
    void the_status_page_is_public_and_cacheable() throws Exception {
        HttpResponse<String> page = get("/status", null);

        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.headers().firstValue("Cache-Control")).hasValue("public, max-age=10");
        assertThat(page.body()).contains("Gantry status").contains("Database").contains("/status.atom");
    }

    @Test
    void signing_out_ends_the_session() throws Exception {
        String session = signIn();
        String csrf = csrfOf(get("/projects", session).body());

        assertThat(post("/sign-out", session, "_csrf=forged", true).statusCode()).isEqualTo(403);
        assertThat(get("/projects", session).statusCode()).as("a forged sign-out ends nothing").isEqualTo(200);
        assertThat(post("/sign-out", session, "_csrf=" + csrf, true).statusCode()).isEqualTo(303);
        assertThat(get("/projects", session).statusCode()).isEqualTo(302);
    }

    @Test
    void while_the_database_is_down_pages_and_sign_in_say_so_as_a_page_with_retry_after() throws Exception {
        String session = signIn();
        pg.stopServer();
        try {
            for (HttpResponse<String> answer : List.of(get("/projects", session),
                    post("/sign-in", null, "token=" + server.token(TokenKind.ADMIN), true))) {
                assertThat(answer.statusCode()).isEqualTo(503);
                assertThat(answer.headers().firstValue("Content-Type").orElseThrow()).startsWith("text/html");
                assertThat(answer.headers().firstValue("Retry-After")).isPresent();
                assertThat(answer.body()).contains("the database cannot take this request now; retry after");
            }
        } finally {
            pg.startServer();
        }
        await().atMost(Duration.ofSeconds(30))
                .until(() -> get("/projects", session).statusCode() == 200);
    }

    private String workflowStatus() {
        return server.jdbi().withHandle(h -> h.createQuery("SELECT status FROM gantry.workflow WHERE id = :id")
                .bind("id", workflow).mapTo(String.class).one());
    }

    private static String csrfOf(String page) {
        Matcher csrf = Pattern.compile("name=\"_csrf\" value=\"([^\"]+)\"").matcher(page);
        assertThat(csrf.find()).isTrue();
        return csrf.group(1);
    }

    private String signIn() throws Exception {
        HttpResponse<String> answer = post("/sign-in", null, "token="
                + URLEncoder.encode(server.token(TokenKind.ADMIN), StandardCharsets.UTF_8), true);
        assertThat(answer.statusCode()).isEqualTo(303);
        return answer.headers().firstValue("Set-Cookie").orElseThrow().split(";", 2)[0];
    }

    private static URI uri(String path) {
        return URI.create(server.api().baseUrl() + path);
    }

    private static HttpResponse<String> get(String path, String cookie) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri(path)).GET();
        if (cookie != null) {
            request.header("Cookie", cookie);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> post(String path, String cookie, String form, boolean sameOrigin)
            throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri(path))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form));
        if (cookie != null) {
            request.header("Cookie", cookie);
        }
        if (sameOrigin) {
            request.header("Origin", server.api().baseUrl());
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
}
