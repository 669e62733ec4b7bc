package dev.gantry.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.management.HotSpotDiagnosticMXBean;
import dev.gantry.server.agent.AgentSettings;
import dev.gantry.server.auth.TokenKind;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * What users read about a job over /api/v2: its output as text and followed live as server-sent events, its
 * artifacts and its test results, in CircleCI's shapes.
 */
class JobResultsIT {
    @RegisterExtension
    static final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension(32);

    private static final String PROJECT = "/api/v2/project/gantry/acme/app";

    @TempDir
    static Path home;

    static TestServer server;
    static AgentClient agent;
    static ApiClient api;
    RunFixtures runs;
    UUID workflow;
    String agentId;

    @BeforeAll
    static void start() {
        server = TestServer.start(pg.dataSource(), home, new ServerSettings(0, AgentSettings.defaults()
                .withPollTimeout(Duration.ofMillis(300))));
        agent = new AgentClient(server.api().anonymous(), server.token(TokenKind.AGENT));
        api = server.api();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @BeforeEach
    void clean() {
        pg.truncate("gantry.project", "gantry.agent", "gantry_queue.message");
        runs = new RunFixtures(server.jdbi());
        workflow = runs.workflow("build");
        agentId = agent.registered("host-1");
    }

    @Test
    void the_output_of_a_job_reads_as_text() {
        UUID job = runs.job(workflow, "test").insert();
        AgentClient.Claimed task = agent.claimed(agentId);
        agent.output(task, task.lease(), 0, "$ make\nok\n");

        ApiClient.Answer output = api.get(PROJECT + "/job/" + runs.number(job) + "/output");

        assertThat(output.status()).isEqualTo(200);
        assertThat(output.header("Content-Type")).startsWith("text/plain");
        assertThat(output.body()).isEqualTo("$ make\nok\n");
    }

    @Test
    void a_parallel_jobs_nodes_come_one_after_another_or_one_by_one() {
        UUID job = runs.job(workflow, "test").parallelism(2).insert();
        AgentClient.Claimed first = agent.claimed(agentId);
        AgentClient.Claimed second = agent.claimed(agentId);
        agent.output(first, first.lease(), 0, "node zero\n");
        agent.output(second, second.lease(), 0, "node one\n");
        String path = PROJECT + "/job/" + runs.number(job) + "/output";

        assertThat(api.get(path).body())
                .isEqualTo("=== node 0 of 2 ===\nnode zero\n\n=== node 1 of 2 ===\nnode one\n");
        assertThat(api.get(path + "?node=1").body()).isEqualTo("node one\n");
        assertThat(api.get(path + "?node=2").status()).isEqualTo(400);
        assertThat(api.get(PROJECT + "/job/99/output").status()).isEqualTo(404);
    }

    @Test
    void following_delivers_a_line_within_a_second_and_ends_with_the_jobs_status() throws Exception {
        UUID job = runs.job(workflow, "test").insert();
        AgentClient.Claimed task = agent.claimed(agentId);
        agent.output(task, task.lease(), 0, "before\n");

        try (Events events = follow(PROJECT + "/job/" + runs.number(job) + "/output?follow=true")) {
            assertThat(events.next()).isEqualTo(new Event("output", "before"));
            long appended = System.nanoTime();
            agent.output(task, task.lease(), 7, "after\npartial");
            assertThat(events.next()).isEqualTo(new Event("output", "after"));
            assertThat(Duration.ofNanos(System.nanoTime() - appended)).isLessThan(Duration.ofSeconds(1));

            assertThat(agent.complete(task, task.lease(), "success").status()).isEqualTo(200);

            assertThat(events.next()).isEqualTo(new Event("output", "partial"));
            assertThat(events.next()).isEqualTo(new Event("end", "success"));
        }
    }

    @Test
    void a_follower_whose_client_went_away_stops() throws Exception {
        UUID job = runs.job(workflow, "test").insert();
        AgentClient.Claimed task = agent.claimed(agentId);
        agent.output(task, task.lease(), 0, "running\n");
        Events events = follow(PROJECT + "/job/" + runs.number(job) + "/output?follow=true");
        assertThat(events.next()).isEqualTo(new Event("output", "running"));
        assertThat(followerThreads()).isPositive();

        events.close();

        await().atMost(Duration.ofSeconds(15)).until(() -> followerThreads() == 0);
    }

    @Test
    void artifacts_are_listed_with_urls_that_download_them() {
        UUID job = runs.job(workflow, "test").insert();
        AgentClient.Claimed task = agent.claimed(agentId);
        agent.bytes("PUT", task.path() + "/artifacts/reports/index.html", "<p>report</p>".getBytes(), task.lease());
        agent.bytes("PUT", task.path() + "/artifacts/logs/a%20b.txt", "text".getBytes(), task.lease());

        ApiClient.Answer list = api.get(PROJECT + "/" + runs.number(job) + "/artifacts");

        assertThat(list.status()).isEqualTo(200);
        JsonNode items = list.json().get("items");
        assertThat(list.json().get("next_page_token").isNull()).isTrue();
        assertThat(items).hasSize(2);
        assertThat(items.get(0).get("path").asText()).isEqualTo("logs/a b.txt");
        assertThat(items.get(1).get("path").asText()).isEqualTo("reports/index.html");
        assertThat(items.get(1).get("node_index").asInt()).isZero();
        URI url = URI.create(items.get(1).get("url").asText());
        assertThat(url.getPath()).isEqualTo(PROJECT + "/" + runs.number(job) + "/artifacts/0/reports/index.html");
        ApiClient.Answer html = api.get(url.getRawPath());
        assertThat(html.status()).isEqualTo(200);
        assertThat(html.header("Content-Type")).startsWith("text/html");
        assertThat(html.body()).isEqualTo("<p>report</p>");
        ApiClient.Answer text = api.get(URI.create(items.get(0).get("url").asText()).getRawPath());
        assertThat(text.body()).isEqualTo("text");
        assertThat(text.header("Content-Type")).startsWith("text/plain");
        assertThat(api.anonymous().get(url.getRawPath()).status()).isEqualTo(401);
        assertThat(api.get(PROJECT + "/" + runs.number(job) + "/artifacts/0/missing.txt").status()).isEqualTo(404);
    }

    @Test
    void tests_are_listed_in_circlecis_shape() {
        UUID job = runs.job(workflow, "test").insert();
        AgentClient.Claimed task = agent.claimed(agentId);
        agent.json("POST", task.path() + "/tests", """
                {"tests": [{"classname": "a.B", "name": "breaks", "file": "a/B.java", "result": "failure",
                            "run_time": 1.5, "message": "expected 1"}]}""", task.lease());

        ApiClient.Answer tests = api.get(PROJECT + "/" + runs.number(job) + "/tests");

        assertThat(tests.status()).isEqualTo(200);
        assertThat(tests.json().get("items")).singleElement().satisfies(test -> {
            assertThat(test.get("message").asText()).isEqualTo("expected 1");
            assertThat(test.get("source").asText()).isEqualTo("unknown");
            assertThat(test.get("run_time").asDouble()).isEqualTo(1.5);
            assertThat(test.get("file").asText()).isEqualTo("a/B.java");
            assertThat(test.get("result").asText()).isEqualTo("failure");
            assertThat(test.get("name").asText()).isEqualTo("breaks");
            assertThat(test.get("classname").asText()).isEqualTo("a.B");
        });
        assertThat(tests.json().get("next_page_token").isNull()).isTrue();
    }

    @Test
    void an_agent_gets_the_timings_of_the_job_s_latest_successful_run() {
        // each run of "test" in a workflow of its own, as each pipeline has
        UUID older = runs.job(runs.workflow("build"), "test").status("success").insert();
        UUID latest = runs.job(runs.workflow("build"), "test").status("success").insert();
        UUID failed = runs.job(runs.workflow("build"), "test").status("failed").insert();
        UUID other = runs.job(runs.workflow("build"), "lint").status("success").insert();
        server.jdbi().useHandle(h -> {
            h.execute("UPDATE gantry.job SET stopped_at = now() - interval '2 hours' WHERE id = ?", older);
            h.execute("UPDATE gantry.job SET stopped_at = now() - interval '1 hour' WHERE id = ?", latest);
            h.execute("UPDATE gantry.job SET stopped_at = now() WHERE id IN (?, ?)", failed, other);
            for (Object[] row : List.of(new Object[] {older, "old"}, new Object[] {latest, "new"},
                    new Object[] {failed, "failed"}, new Object[] {other, "lint"})) {
                h.execute("INSERT INTO gantry.test_case (job_id, node_index, seq, classname, name, file, result, "
                        + "run_time) VALUES (?, 0, 0, 'a.B', ?, 'a/B.java', 'success', 2.5)", row[0], row[1]);
            }
        });
        runs.job(workflow, "test").insert();
        AgentClient.Claimed task = agent.claimed(agentId);

        JsonNode timings = agent.get(task.path() + "/timings", task.lease()).json();

        assertThat(timings.get("tests")).singleElement().satisfies(t -> {
            assertThat(t.get("name").asText()).isEqualTo("new");
            assertThat(t.get("file").asText()).isEqualTo("a/B.java");
            assertThat(t.get("classname").asText()).isEqualTo("a.B");
            assertThat(t.get("run_time").asDouble()).isEqualTo(2.5);
        });
    }

    @Test
    void a_job_with_no_earlier_successful_run_gets_no_timings() {
        runs.job(workflow, "test").insert();
        AgentClient.Claimed task = agent.claimed(agentId);

        assertThat(agent.get(task.path() + "/timings", task.lease()).json().get("tests")).isEmpty();
    }

    @Test
    void long_lists_of_tests_and_artifacts_come_in_keyset_pages() {
        UUID job = runs.job(workflow, "test").parallelism(2).insert();
        server.jdbi().useHandle(h -> {
            h.execute("""
                    INSERT INTO gantry.test_case (job_id, node_index, seq, classname, name, result, run_time)
                    SELECT ?, n, s, 'a.B', 'case ' || n || '/' || s, 'success', 0.1
                    FROM generate_series(0, 1) AS n, generate_series(1, 75) AS s
                    """, job);
            h.execute("""
                    INSERT INTO gantry.artifact (job_id, node_index, path, size, created_at)
                    SELECT ?, 0, 'file-' || lpad(i::text, 3, '0') || '.txt', 1, now() FROM generate_series(1, 130) AS i
                    """, job);
        });
        String tests = PROJECT + "/" + runs.number(job) + "/tests";

        JsonNode first = api.get(tests).json();
        JsonNode second = api.get(tests + "?page-token=" + first.get("next_page_token").asText()).json();

        assertThat(first.get("items")).hasSize(100);
        assertThat(first.get("items").get(99).get("name").asText()).isEqualTo("case 1/25");
        assertThat(second.get("items")).hasSize(50);
        assertThat(second.get("items").get(0).get("name").asText()).isEqualTo("case 1/26");
        assertThat(second.get("next_page_token").isNull()).isTrue();

        String artifacts = PROJECT + "/" + runs.number(job) + "/artifacts";
        JsonNode page1 = api.get(artifacts).json();
        JsonNode page2 = api.get(artifacts + "?page-token=" + page1.get("next_page_token").asText()).json();
        assertThat(page1.get("items")).hasSize(100);
        assertThat(page2.get("items")).hasSize(30);
        assertThat(page2.get("items").get(0).get("path").asText()).isEqualTo("file-101.txt");
        assertThat(api.get(tests + "?page-token=bogus").status()).isEqualTo(400);
    }

    /** One server-sent event. */
    record Event(String name, String data) {
    }

    /** A live event stream, read on a thread of its own. */
    static final class Events implements AutoCloseable {
        private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();
        private final Stream<String> lines;

        Events(Stream<String> lines) {
            this.lines = lines;
            Thread.ofPlatform().daemon().start(this::read);
        }

        private void read() {
            String name = "message";
            StringBuilder data = null;
            try {
                for (Iterator<String> it = lines.iterator(); it.hasNext(); ) {
                    String line = it.next();
                    if (line.isEmpty()) {
                        if (data != null) {
                            events.add(new Event(name, data.toString()));
                        }
                        name = "message";
                        data = null;
                    } else if (line.startsWith("event:")) {
                        name = line.substring(6).strip();
                    } else if (line.startsWith("data:")) {
                        String value = line.substring(5).startsWith(" ") ? line.substring(6) : line.substring(5);
                        data = data == null ? new StringBuilder(value) : data.append('\n').append(value);
                    }
                }
            } catch (RuntimeException closed) {
                // the test closed the stream
            }
        }

        Event next() throws InterruptedException {
            Event event = events.poll(5, TimeUnit.SECONDS);
            if (event == null) {
                throw new AssertionError("no event within 5 s");
            }
            return event;
        }

        @Override
        public void close() {
            lines.close();
        }
    }

    private static Events follow(String path) throws IOException, InterruptedException {
        HttpResponse<Stream<String>> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        server.server().url().resolve(path)).header("Circle-Token", server.token(TokenKind.ADMIN))
                .header("Accept", "text/event-stream").build(), HttpResponse.BodyHandlers.ofLines());
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type").orElse("")).startsWith("text/event-stream");
        return new Events(response.body());
    }

    /** Threads, virtual ones included, with an output follower on their stack. */
    private static long followerThreads() throws IOException {
        Path dump = home.resolve("threads-" + UUID.randomUUID() + ".txt");
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpThreads(dump.toString(),
                HotSpotDiagnosticMXBean.ThreadDumpFormat.TEXT_PLAIN);
        try (Stream<String> lines = Files.lines(dump)) {
            return lines.filter(line -> line.contains("OutputFollower.run")).count();
        } finally {
            Files.delete(dump);
        }
    }
}
