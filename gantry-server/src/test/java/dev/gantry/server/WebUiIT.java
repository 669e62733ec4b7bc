package dev.gantry.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import static org.awaitility.Awaitility.await;

import dev.gantry.server.auth.TokenKind;
import dev.gantry.server.storage.FileOutputStore;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import java.io.ByteArrayInputStream;
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

/**
 * The web UI over real HTTP, as a browser without JavaScript uses it (sign-in, pages, actions and their guards), and
 * the live pages' event streams as live.js reads them: only what is new, a reconnect that goes on from its last event,
 * the end with the job, the session or the browser.
 */
class WebUiIT {
    @RegisterExtension
    static final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension();

    @TempDir
    static Path home;

    static TestServer server;
    static HttpClient http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();
    RunFixtures runs;
    UUID workflow;
    UUID testJob;

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
        testJob = runs.job(workflow, "test").status("queued").requires("build").insert();
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
                .contains("class=\"edge\"").contains("data-live=\"/pipelines/gantry/acme/app/1/events\"")
                .doesNotContain("hx-trigger");
        Matcher testJob = Pattern.compile("href=\"/jobs/gantry/acme/app/(\\d+)\">test<").matcher(pipeline);
        assertThat(testJob.find()).isTrue();
        String job = get("/jobs/gantry/acme/app/" + testJob.group(1), session).body();
        assertThat(job).contains("Why this job is waiting")
                .as("the job links back to its pipeline, in its facts and its breadcrumbs")
                .contains("<dt>Pipeline</dt><dd><a href=\"/pipelines/gantry/acme/app/1\">#1</a></dd>")
                .contains("<li><a href=\"/pipelines/gantry/acme/app/1\">Pipeline 1</a></li>");
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

    @Test
    void a_running_jobs_stream_sends_only_new_output_and_a_reconnect_goes_on_from_its_last_event() throws Exception {
        String session = signIn();
        startTestJob();
        append("\u001b[32mcompiling\n");
        String page = get("/jobs/gantry/acme/app/2", session).body();
        assertThat(page).contains("compiling").contains("data-live=\"/jobs/gantry/acme/app/2/events?node=0\"")
                .as("a running job says when it started and has no duration yet").contains("<dt>Started</dt>")
                .doesNotContain("<dt>Duration</dt>");
        String from = attribute(page, "data-live-from");

        try (EventStream first = EventStream.open(uri("/jobs/gantry/acme/app/2/events?node=0&from=" + from),
                session, null)) {
            first.next("change"); // what the page had, again: the head and the step summaries
            append("\u001b[1mtested\n");
            EventStream.Event output = first.until(e -> e.data().contains("\"op\":\"output\""));
            assertThat(output.data()).contains("tested").doesNotContain("compiling")
                    .as("the step's green runs on").contains("a-fg-2 a-b");
            from = output.id();
        }
        append("linked ✓\npart");
        try (EventStream second = EventStream.open(uri("/jobs/gantry/acme/app/2/events?node=0&from=0/-1.-1.0"),
                session, from)) {
            EventStream.Event output = second.until(e -> e.data().contains("\"op\":\"output\""));
            assertThat(output.data()).as("Last-Event-ID wins over ?from=").contains("linked ✓</span>\\n")
                    .contains("\"tail\":\"<span class=\\\"a-fg-2 a-b\\\">part</span>\"")
                    .doesNotContain("tested").doesNotContain("compiling");

            finishTestJob();
            EventStream.Event end = second.until(e -> e.name().equals("end"));
            assertThat(second.received()).anySatisfy(e -> assertThat(e.data()).contains("s-success"));
            assertThat(end.data()).isEmpty();
            second.awaitClosed();
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> openStreams() == 0);
        assertThat(get("/jobs/gantry/acme/app/2", session).body()).doesNotContain("data-live=")
                .contains("<dt>Started</dt>").contains("<dt>Duration</dt>");
    }

    @Test
    void a_stream_ends_when_its_browser_goes_away_or_its_session_ends() throws Exception {
        String session = signIn();
        startTestJob();
        EventStream gone = EventStream.open(uri("/jobs/gantry/acme/app/2/events?node=0"), session, null);
        gone.next("change");
        assertThat(openStreams()).isEqualTo(1);
        gone.close();
        append("noticed at the next writes\n"); // the first may still fit in the socket's buffer
        Thread.sleep(400); // more than a watcher tick
        append("and this one fails\n");
        await().atMost(Duration.ofSeconds(15)).until(() -> openStreams() == 0);
        assertThat(gauge("gantry_ui_live_watched")).as("its watch ended with it").isZero();

        try (EventStream signedIn = EventStream.open(uri("/pipelines/gantry/acme/app/1/events"), session, null)) {
            assertThat(signedIn.next("change").data()).contains("\"target\":\"workflows\"").contains("test");
            post("/sign-out", session, "_csrf=" + csrfOf(get("/projects", session).body()), true);
            // The session is asked again at the heartbeat, every 10 s.
            EventStream.Event end = signedIn.until(e -> e.name().equals("end"), Duration.ofSeconds(15));
            assertThat(end.data()).contains("session has ended");
            signedIn.awaitClosed();
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> openStreams() == 0);
    }

    @Test
    void a_finished_pipeline_page_has_no_stream_and_a_running_one_ends_its_stream_when_it_finishes()
            throws Exception {
        String session = signIn();
        try (EventStream stream = EventStream.open(uri("/pipelines/gantry/acme/app/1/events"), session, null)) {
            stream.next("change");
            server.jdbi().useHandle(h -> {
                h.execute("UPDATE gantry.job SET status = 'success', stopped_at = now() WHERE workflow_id = ?",
                        workflow);
                h.execute("UPDATE gantry.workflow SET status = 'success', stopped_at = now() WHERE id = ?", workflow);
            });
            stream.until(e -> e.name().equals("end"));
            assertThat(stream.received()).anySatisfy(e -> assertThat(e.data()).contains("Rerun workflow"));
        }
        assertThat(get("/pipelines/gantry/acme/app/1", session).body()).doesNotContain("data-live=");
    }

    /** The test job runs on node 0 with one step, as after an agent's claim and step report. */
    private void startTestJob() {
        server.jdbi().useHandle(h -> {
            h.execute("UPDATE gantry.job SET status = 'running', started_at = now() WHERE id = ?", testJob);
            h.execute("UPDATE gantry.job_task SET status = 'running', started_at = now() WHERE job_id = ?", testJob);
            h.execute("""
                    INSERT INTO gantry.job_step (job_id, node_index, step_index, name, status, output_offset,
                                                 started_at)
                    VALUES (?, 0, 0, 'Run the tests', 'running', 0, now())""", testJob);
        });
    }

    private void finishTestJob() {
        server.jdbi().useHandle(h -> {
            h.execute("UPDATE gantry.job_step SET status = 'success', exit_code = 0, stopped_at = now() "
                    + "WHERE job_id = ?", testJob);
            h.execute("UPDATE gantry.job_task SET status = 'success', stopped_at = now() WHERE job_id = ?", testJob);
            h.execute("UPDATE gantry.job SET status = 'success', stopped_at = now() WHERE id = ?", testJob);
        });
    }

    /** Appends to the test job's output as the agent API does (the server keeps output as files here). */
    private void append(String text) throws Exception {
        FileOutputStore store = new FileOutputStore(home.resolve("output"));
        store.append(testJob, 0, store.length(testJob, 0),
                new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)));
    }

    private static long openStreams() {
        return gauge("gantry_ui_live_streams");
    }

    private static long gauge(String name) {
        Matcher gauge = Pattern.compile("(?m)^" + name + "(?:\\{[^}]*})? (\\S+)$")
                .matcher(server.api().get("/metrics").body());
        assertThat(gauge.find()).as(name).isTrue();
        return (long) Double.parseDouble(gauge.group(1));
    }

    private static String attribute(String page, String name) {
        Matcher value = Pattern.compile(name + "=\"([^\"]+)\"").matcher(page);
        assertThat(value.find()).as(name).isTrue();
        return value.group(1);
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
