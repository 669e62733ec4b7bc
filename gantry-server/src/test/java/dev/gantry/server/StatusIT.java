package dev.gantry.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gantry.server.agent.AgentSettings;
import dev.gantry.server.dispatch.DispatchSettings;
import dev.gantry.queue.QueueSettings;
import dev.gantry.queue.Queues;
import dev.gantry.server.http.ExternalUrl;
import dev.gantry.server.notify.DeliveryQueue;
import dev.gantry.server.notify.EventOutbox;
import dev.gantry.server.notify.FakeEndpoint;
import dev.gantry.server.project.RepositoryPolicy;
import dev.gantry.server.auth.TokenKind;
import dev.gantry.server.status.StatusSettings;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.net.URI;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import javax.xml.parsers.DocumentBuilderFactory;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.sqlobject.SqlObjectPlugin;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The computed status page under real degradations, on a real database over real HTTP: a resource class nobody
 * serves, the database read-only and then down. Each shows on {@code /status.json} within a minute and goes away by
 * itself; the incidents they leave are in the history and the Atom feed, with an admin's note. The page evaluates
 * every half second over windows of 4 and 20 seconds, against a job start objective of 1 second, so it all takes
 * seconds.
 */
class StatusIT {
    @RegisterExtension
    static final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension();

    static final StatusSettings FAST = new StatusSettings(Duration.ofMillis(500), Duration.ofSeconds(4),
            Duration.ofSeconds(20), Duration.ofSeconds(1), Duration.ofSeconds(5));
    /** What the issue promises: each degradation shows within a minute. */
    static final Duration WITHIN = Duration.ofMinutes(1);
    static final Set<String> OUTAGES = Set.of("degraded", "partial_outage", "major_outage");

    @TempDir
    static Path home;

    static TestServer server;
    static ApiClient anonymous;

    @BeforeAll
    static void start() {
        // The read-only database is distress for dispatch too; its quiet period and ramp are cut short here so that
        // the next test's jobs start at once (DispatchDistressIT tests them).
        DispatchSettings dispatch = DispatchSettings.defaults().withTimings(Duration.ofSeconds(1), Duration.ZERO, 1,
                Duration.ofSeconds(1), 1_000);
        server = TestServer.start(pg.dataSource(), home, new ServerSettings(0, AgentSettings.defaults()
                .withPollTimeout(Duration.ofSeconds(1))).withStatus(FAST).withDispatch(dispatch)
                .withRepositories(RepositoryPolicy.ANYTHING)); // the failing webhook endpoint is on 127.0.0.1
        anonymous = server.api().anonymous();
    }

    @AfterAll
    static void stop() {
        pg.startServer();
        server.close();
    }

    @BeforeEach
    void clean() {
        pg.truncate("gantry.project", "gantry.agent", "gantry_queue.message");
    }

    @Test
    void a_class_without_capacity_shows_within_a_minute_and_recovers_by_itself_once_an_agent_takes_its_jobs() {
        UUID[] jobs = queueJobs("large", 4, 8192, 2);

        long began = System.nanoTime();
        JsonNode degraded = awaitComponent("job-starts/large", row -> OUTAGES.contains(row.get("state").asText()));
        assertThat(Duration.ofNanos(System.nanoTime() - began)).isLessThan(WITHIN);
        assertThat(degraded.get("reason").asText()).contains("p95 start latency", "against an objective of 1s",
                "2 waiting");
        assertThat(degraded.get("since").asText()).endsWith("Z");
        assertThat(component(status(), "job-starts/medium").get("state").asText()).as("other classes")
                .isEqualTo("operational");
        JsonNode incident = awaitIncident("job-starts/large", true);
        assertThat(incident.get("component_name").asText()).isEqualTo("Job starts: large");

        runAll(jobs, 8, 16384);

        JsonNode recovered = awaitComponent("job-starts/large", row -> row.get("state").asText().equals("operational"));
        assertThat(recovered.get("since").isNull()).isTrue();
        JsonNode closed = awaitIncident("job-starts/large", false);
        assertThat(closed.get("id").asText()).isEqualTo(incident.get("id").asText());
        assertThat(closed.get("ended_at").asText()).isGreaterThan(closed.get("started_at").asText());
    }

    @Test
    void the_database_read_only_and_then_down_shows_as_an_outage_while_the_page_answers_and_recovers_by_itself()
            throws SQLException {
        awaitComponent("database", row -> row.get("state").asText().equals("operational"));

        readOnly(true);
        JsonNode readOnly;
        try {
            long began = System.nanoTime();
            // Waits for the read-only state itself: an evaluation in flight when readOnly() ends the pool's sessions
            // fails to read or to write on a killed session, and shows that first (truthfully: its connection was
            // killed, "shutting down").
            readOnly = awaitComponent("database", row -> row.get("state").asText().equals("partial_outage")
                    && row.get("reason").asText().contains("read-only"));
            assertThat(Duration.ofNanos(System.nanoTime() - began)).isLessThan(WITHIN);
        } finally {
            readOnly(false);
        }
        assertThat(readOnly.get("state").asText()).isEqualTo("partial_outage");
        assertThat(readOnly.get("reason").asText()).contains("refuses writes", "read-only");
        awaitComponent("database", row -> row.get("state").asText().equals("operational"));

        JsonNode down;
        JsonNode api;
        pg.stopServer();
        try {
            long began = System.nanoTime();
            down = awaitComponent("database", row -> row.get("state").asText().equals("major_outage"));
            assertThat(Duration.ofNanos(System.nanoTime() - began)).isLessThan(WITHIN);
            JsonNode page = status();
            api = component(page, "api");
            assertThat(page.get("stale_since").asText()).endsWith("Z");
            assertThat(component(page, "notifications").get("state").asText()).isEqualTo("unknown");
        } finally {
            pg.startServer();
        }
        assertThat(down.get("reason").asText()).contains("cannot read from the database since");
        assertThat(api.get("state").asText()).isEqualTo("unknown");
        assertThat(api.get("reason").asText()).startsWith("unknown since").contains("(last seen operational)");

        awaitComponent("database", row -> row.get("state").asText().equals("operational"));
        assertThat(component(status(), "api").get("state").asText()).isNotEqualTo("unknown");
        // The leader could write neither outage while it lasted; it records both, closed, once it can.
        await().atMost(WITHIN).until(() -> incidentsOf(status(), "database").size() >= 2);
        List<JsonNode> recorded = incidentsOf(status(), "database");
        assertThat(recorded).allSatisfy(i -> assertThat(i.get("ended_at").isNull()).isFalse());
        // The read-only episode's worst state is partial, or major when an evaluation met a session readOnly() ended.
        assertThat(recorded).extracting(i -> i.get("worst_state").asText()).contains("major_outage")
                .allMatch(state -> state.equals("partial_outage") || state.equals("major_outage"));
    }

    @Test
    void a_failing_notification_endpoint_shows_within_a_minute_and_recovers_by_itself() throws Exception {
        try (FakeEndpoint endpoint = new FakeEndpoint(FakeEndpoint.Mode.FAIL);
             Queues queues = Queues.start(pg.dataSource(), QueueSettings.defaults())) {
            RunFixtures runs = new RunFixtures(server.jdbi());
            UUID workflow = runs.workflow("notified");
            ApiClient.Answer hook = server.api().post("/api/v2/webhook", """
                    {"name": "status", "events": ["job-completed"], "url": "%s", "verify-tls": false,
                     "signing-secret": "s3cret", "scope": {"id": "%s", "type": "project"}}"""
                    .formatted(endpoint.url("/hook"), runs.projectId));
            assertThat(hook.status()).as(hook.body()).isEqualTo(201);
            List<UUID> jobs = new ArrayList<>();
            for (int i = 0; i < 25; i++) {
                jobs.add(runs.job(workflow, "notified-" + i).insert());
            }

            long began = System.nanoTime();
            // 25 jobs end at once, each a job-completed webhook to an endpoint that answers 500 (reported as the
            // server's transactions report them; the server delivers).
            Jdbi reporting = Jdbi.create(pg.dataSource()).installPlugin(new SqlObjectPlugin());
            EventOutbox.install(reporting, DeliveryQueue.onMain(queues), ExternalUrl.configured(URI.create("https://ci.example")));
            reporting.useTransaction(h -> EventOutbox.jobsCompleted(h, jobs, OffsetDateTime.now(ZoneOffset.UTC)));
            JsonNode failing = awaitComponent("notifications", row -> OUTAGES.contains(row.get("state").asText()));
            assertThat(Duration.ofNanos(System.nanoTime() - began)).isLessThan(WITHIN);
            assertThat(failing.get("reason").asText()).contains("notifications failing");
            assertThat(endpoint.calls()).isPositive();

            endpoint.mode(FakeEndpoint.Mode.OK);
            JsonNode recovered = awaitComponent("notifications",
                    row -> row.get("state").asText().equals("operational"));
            assertThat(recovered.get("reason").asText()).contains("notifications");
        }
    }

    @Test
    void deliveries_no_worker_takes_are_late_and_show_as_failing() {
        // Due two minutes ago, never tried, no guard holding them: what deliveries on a stopped queue shard look like
        // (25, as a window of fewer than 20 is not judged).
        RunFixtures runs = new RunFixtures(server.jdbi());
        UUID event = UUID.randomUUID();
        server.jdbi().useHandle(h -> {
            h.execute("""
                    INSERT INTO gantry.notify_event (id, type, subject_id, project_id, happened_at, snapshot)
                    VALUES (?, 'job-completed', ?, ?, now(), '{}')""", event, UUID.randomUUID(), runs.projectId);
            h.execute("""
                    INSERT INTO gantry.notify_delivery (id, channel, destination_id, event_id, state,
                                                        window_started_at, next_attempt_at, created_at)
                    SELECT gen_random_uuid(), 'webhook', gen_random_uuid(), ?, 'pending', now(),
                           now() - interval '2 minutes', now()
                    FROM generate_series(1, 25)""", event);
        });

        JsonNode late = awaitComponent("notifications", row -> OUTAGES.contains(row.get("state").asText()));
        assertThat(late.get("reason").asText()).contains("notifications failing");
        // Gone again, so that the next test's notifications start from an operational row.
        server.jdbi().useHandle(h -> h.execute("DELETE FROM gantry.notify_delivery WHERE event_id = ?", event));
        awaitComponent("notifications", row -> row.get("state").asText().equals("operational"));
    }

    @Test
    void an_incident_keeps_its_history_and_an_admin_note_in_json_and_atom_and_cannot_be_hidden() throws Exception {
        UUID[] jobs = queueJobs("xlarge", 8, 16384, 1);
        JsonNode open = awaitIncident("job-starts/xlarge", true);
        String id = open.get("id").asText();
        String notes = "/api/v2/status/incidents/" + id + "/notes";
        String note = "Adding <xlarge> capacity & \"more\"; see ]]> the runbook";

        ApiClient.Answer noted = server.api().post(notes, "{\"message\": \"" + note.replace("\"", "\\\"") + "\"}");
        assertThat(noted.status()).as(noted.body()).isEqualTo(201);
        assertThat(noted.json().at("/notes/0/message").asText()).isEqualTo(note);
        assertThat(noted.json().at("/notes/0/author").asText()).isEqualTo("admin");
        assertThat(anonymous.post(notes, "{\"message\": \"x\"}").status()).as("no token").isEqualTo(401);
        assertThat(server.api().post(notes, "{\"message\": \"  \"}").status()).isEqualTo(400);
        assertThat(server.api().post("/api/v2/status/incidents/" + UUID.randomUUID() + "/notes",
                "{\"message\": \"x\"}").status()).isEqualTo(404);
        assertThat(server.api().delete("/api/v2/status/incidents/" + id).status()).as("no way to hide it")
                .isIn(404, 405);
        assertThat(server.api().delete(notes).status()).isIn(404, 405);
        server.createProject("viewer", "app");
        server.api().post("/api/v2/user", "{\"login\": \"dev\"}");
        ApiClient dev = server.api().withToken(server.api().post("/api/v2/user/dev/token", "{\"label\": \"t\"}")
                .text("token"));
        assertThat(dev.post(notes, "{\"message\": \"not mine to say\"}").status()).as("not a site admin")
                .isEqualTo(403);

        runAll(jobs, 8, 16384);
        JsonNode closed = awaitIncident("job-starts/xlarge", false);
        assertThat(closed.at("/notes/0/message").asText()).isEqualTo(note);

        ApiClient.Answer json = anonymous.get("/status.json");
        assertThat(json.header("Cache-Control")).isEqualTo("public, max-age=10");
        assertThat(json.header("Content-Type")).startsWith("application/json");
        // The API calls above, counted by this server's meters and summed from the table (the 20 s window).
        JsonNode longWindow = component(json.json(), "api").at("/slis/1");
        assertThat(longWindow.get("window_seconds").asLong()).isEqualTo(20);
        assertThat(longWindow.get("events").asLong()).as("API requests, summed").isGreaterThanOrEqualTo(5);
        assertThat(component(json.json(), "job-output").at("/slis/1/events").asLong()).as("the agent's output")
                .isPositive();
        ApiClient.Answer atom = anonymous.get("/status.atom");
        assertThat(atom.status()).isEqualTo(200);
        assertThat(atom.header("Content-Type")).startsWith("application/atom+xml");
        assertThat(atom.header("Cache-Control")).isEqualTo("public, max-age=10");
        Element entry = entry(atom.body(), "urn:uuid:" + id);
        assertThat(text(entry, "title")).isEqualTo("Job starts: xlarge: " + closed.get("worst_state").asText()
                .replace('_', ' ').replace("degraded", "degraded performance") + " (resolved)");
        assertThat(text(entry, "content")).contains("resolved", "admin: " + note);
        assertThat(text(entry, "updated")).isNotEmpty();
    }

    /** Queues {@code count} single-node jobs of {@code resourceClass}, queued now. */
    private UUID[] queueJobs(String resourceClass, int cpu, int memoryMb, int count) {
        RunFixtures runs = new RunFixtures(server.jdbi());
        UUID workflow = runs.workflow("main");
        UUID[] jobs = new UUID[count];
        for (int i = 0; i < count; i++) {
            jobs[i] = runs.job(workflow, resourceClass + "-" + i).resourceClass(resourceClass, cpu, memoryMb).insert();
        }
        // The fixtures queue their tasks at a fixed past time; these waits are to start now.
        server.jdbi().useHandle(h -> h.execute("UPDATE gantry.job_task SET queued_at = now()"));
        return jobs;
    }

    /** Capacity appears: an agent large enough claims each job and finishes it. */
    private void runAll(UUID[] jobs, int cpu, int memoryMb) {
        AgentClient agent = new AgentClient(anonymous, server.token(TokenKind.AGENT));
        String agentId = agent.registered("big-box", cpu, memoryMb);
        for (int i = 0; i < jobs.length; i++) {
            AgentClient.Claimed task = AgentClient.claimed(agent.claim(agentId, cpu, memoryMb));
            assertThat(agent.output(task, task.lease(), 0, "make\n").status()).isLessThan(300);
            assertThat(agent.complete(task, task.lease(), "success").status()).isEqualTo(200);
        }
    }

    private static JsonNode status() {
        ApiClient.Answer answer = anonymous.get("/status.json");
        assertThat(answer.status()).as("the page answers whatever the database does: " + answer.body())
                .isEqualTo(200);
        return answer.json();
    }

    private static JsonNode component(JsonNode page, String id) {
        for (JsonNode row : page.get("components")) {
            if (row.get("id").asText().equals(id)) {
                return row;
            }
        }
        throw new AssertionError("no component " + id + " in " + page);
    }

    private static JsonNode awaitComponent(String id, java.util.function.Predicate<JsonNode> condition) {
        JsonNode[] seen = new JsonNode[1];
        await().atMost(WITHIN).pollInterval(Duration.ofMillis(200)).until(() -> {
            seen[0] = component(status(), id);
            return condition.test(seen[0]);
        });
        return seen[0];
    }

    private static List<JsonNode> incidentsOf(JsonNode page, String component) {
        List<JsonNode> found = new ArrayList<>();
        page.get("incidents").forEach(i -> {
            if (i.get("component").asText().equals(component)) {
                found.add(i);
            }
        });
        return found;
    }

    /** The latest incident of {@code component}, once it is open (or closed, if {@code open} is false). */
    private static JsonNode awaitIncident(String component, boolean open) {
        JsonNode[] seen = new JsonNode[1];
        await().atMost(WITHIN).pollInterval(Duration.ofMillis(200)).until(() -> {
            List<JsonNode> incidents = incidentsOf(status(), component);
            seen[0] = incidents.isEmpty() ? null : incidents.getFirst();
            return seen[0] != null && seen[0].get("ended_at").isNull() == open;
        });
        return seen[0];
    }

    /** Makes the test database refuse writes (or take them again) for every session, as a failed-over standby. */
    private static void readOnly(boolean on) throws SQLException {
        try (Connection c = DriverManager.getConnection(pg.jdbcUrl()); Statement s = c.createStatement()) {
            s.execute("SET default_transaction_read_only = off");
            s.execute("ALTER DATABASE \"" + pg.databaseName() + "\" " + (on
                    ? "SET default_transaction_read_only = on" : "RESET default_transaction_read_only"));
            // A session reads the default when it starts: the pool's sessions must start again.
            s.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() "
                    + "AND pid <> pg_backend_pid()");
        }
    }

    private static Element entry(String xml, String id) throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(true);
        Document feed = factory.newDocumentBuilder().parse(new ByteArrayInputStream(
                xml.getBytes(StandardCharsets.UTF_8)));
        NodeList entries = feed.getElementsByTagNameNS("http://www.w3.org/2005/Atom", "entry");
        for (int i = 0; i < entries.getLength(); i++) {
            Element entry = (Element) entries.item(i);
            if (id.equals(text(entry, "id"))) {
                return entry;
            }
        }
        throw new AssertionError("no entry " + id + " in " + xml);
    }

    private static String text(Element parent, String name) {
        NodeList nodes = parent.getElementsByTagNameNS("http://www.w3.org/2005/Atom", name);
        return nodes.getLength() == 0 ? null : nodes.item(0).getTextContent();
    }
}
