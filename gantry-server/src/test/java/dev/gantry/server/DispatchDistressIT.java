package dev.gantry.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.gantry.server.agent.AgentSettings;
import dev.gantry.server.auth.TokenKind;
import dev.gantry.server.dispatch.DispatchSettings;
import dev.gantry.server.notify.FakeEndpoint;
import dev.gantry.server.project.RepositoryPolicy;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Dispatch pauses itself on real database distress and ramps back once it is quiet, while triggers are still
 * accepted: dead tuples piled up by a large update in the queue's schema (autovacuum off, as when an old snapshot
 * keeps them), then vacuumed; notification deliveries yield to job starts. Thresholds are small and timings short
 * so the test runs in seconds.
 */
class DispatchDistressIT {
    @RegisterExtension
    static final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension(32);

    private static final long DEAD_TUPLES = 5_000;

    @TempDir
    static Path home;

    static TestServer server;
    static AgentClient agent;
    RunFixtures runs;
    UUID workflow;

    @BeforeAll
    static void start() {
        server = TestServer.start(pg.dataSource(), home, new ServerSettings(0, AgentSettings.defaults()
                .withPollTimeout(Duration.ofMillis(1500))).withRepositories(RepositoryPolicy.ANYTHING)
                .withDispatch(DispatchSettings.defaults()
                        .withThresholds(Duration.ofSeconds(1), DispatchSettings.DEFAULT_WAL_BYTES_PER_SECOND,
                                DEAD_TUPLES)
                        .withTimings(Duration.ofMillis(200), Duration.ofSeconds(2), 0.5, Duration.ofSeconds(3), 2)));
        agent = new AgentClient(server.api().anonymous(), server.token(TokenKind.AGENT));
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @BeforeEach
    void clean() throws SQLException {
        sql("DROP TABLE IF EXISTS gantry_queue.ballast");
        pg.truncate("gantry.project", "gantry.agent", "gantry_queue.message");
        runs = new RunFixtures(server.jdbi());
        workflow = runs.workflow("build-and-test");
        awaitState("running");
    }

    @Test
    void dead_tuples_over_the_threshold_stop_claims_while_triggers_are_accepted_and_claims_ramp_back_once_vacuumed()
            throws SQLException {
        UUID first = runs.job(workflow, "a").insert();
        UUID second = runs.job(workflow, "b").insert();
        runs.job(workflow, "c").insert();
        String agentId = agent.registered("host-1");

        // A large update leaves a dead row version behind for every row, as the incident's deletions did.
        sql("CREATE TABLE gantry_queue.ballast (id int PRIMARY KEY, v int) WITH (autovacuum_enabled = false)");
        sql("INSERT INTO gantry_queue.ballast SELECT i, 0 FROM generate_series(1, " + DEAD_TUPLES * 2 + ") i");
        sqlCounted("UPDATE gantry_queue.ballast SET v = 1");

        ApiClient.Answer paused = awaitState("paused");
        assertThat(paused.json().at("/signals/distress/0").asText()).contains("dead tuples");
        assertThat(paused.json().get("self_pauses").asInt()).isPositive();
        assertThat(agent.claim(agentId, 64, 1 << 20).status()).as("no task while paused").isEqualTo(204);
        assertThat(runs.taskStatus(first, 0)).isEqualTo("queued");
        ApiClient.Answer job = server.api().get("/api/v2/project/gantry/acme/app/job/1");
        assertThat(job.json().at("/waiting/reason").asText()).isEqualTo("dispatch_paused");
        assertThat(job.json().at("/waiting/message").asText()).contains("dead tuples");
        ApiClient.Answer trigger = server.api().post("/api/v2/project/gantry/acme/app/pipeline",
                "{\"branch\": \"main\"}");
        assertThat(trigger.status()).as("a trigger is accepted while dispatch is paused: " + trigger).isEqualTo(201);

        sqlCounted("VACUUM gantry_queue.ballast");
        awaitState("ramping");
        assertThat(AgentClient.claimed(agent.claim(agentId, 64, 1 << 20)).jobId()).isEqualTo(first);
        assertThat(AgentClient.claimed(agent.claim(agentId, 64, 1 << 20)).jobId()).isEqualTo(second);
        awaitState("running");
    }

    @Test
    void an_operator_holds_dispatch_on_every_server_and_resumes_it_with_a_ramp() {
        UUID job = runs.job(workflow, "a").insert();
        String agentId = agent.registered("host-1");

        ApiClient.Answer held = server.api().post("/api/v2/admin/dispatch/pause", "{\"reason\": \"maintenance\"}");
        assertThat(held.text("state")).isEqualTo("held");
        assertThat(held.text("reason")).contains("maintenance");
        assertThat(agent.claim(agentId, 64, 1 << 20).status()).isEqualTo(204);
        assertThat(server.api().post("/api/v2/project/gantry/acme/app/pipeline", "{\"branch\": \"main\"}").status()).isEqualTo(201);

        ApiClient.Answer resumed = server.api().post("/api/v2/admin/dispatch/resume",
                "{\"ramp\": {\"from\": 0.5, \"over_seconds\": 60}}");
        assertThat(resumed.text("state")).isEqualTo("ramping");
        assertThat(AgentClient.claimed(agent.claim(agentId, 64, 1 << 20)).jobId()).isEqualTo(job);
        assertThat(server.api().post("/api/v2/admin/dispatch/resume", "").text("state")).isEqualTo("running");
    }

    @Test
    void deliveries_wait_while_dispatch_is_held_or_ramping_and_go_out_once_it_runs() throws Exception {
        try (FakeEndpoint endpoint = new FakeEndpoint(FakeEndpoint.Mode.OK)) {
            ApiClient.Answer webhook = server.api().post("/api/v2/webhook", """
                    {"name": "dashboard", "events": ["workflow-completed"], "url": "%s", "verify-tls": true,
                     "signing-secret": "s3cret-s3cret", "scope": {"id": "%s", "type": "project"}}"""
                    .formatted(endpoint.url("/hook"), runs.projectId));
            assertThat(webhook.status()).as(webhook.body()).isEqualTo(201);
            runs.job(workflow, "a").insert();

            server.api().post("/api/v2/admin/dispatch/pause", "{\"reason\": \"maintenance\"}");
            assertThat(server.api().post("/api/v2/workflow/" + workflow + "/cancel", "{}").status()).isEqualTo(202);
            await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3))
                    .until(() -> endpoint.calls() == 0);

            assertThat(server.api().post("/api/v2/admin/dispatch/resume",
                    "{\"ramp\": {\"from\": 0.5, \"over_seconds\": 60}}").text("state")).isEqualTo("ramping");
            await("job starts ramp first").during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3))
                    .until(() -> endpoint.calls() == 0);

            assertThat(server.api().post("/api/v2/admin/dispatch/resume", "").text("state")).isEqualTo("running");
            await().atMost(Duration.ofSeconds(10)).until(() -> endpoint.accepted().size() == 1);
            assertThat(endpoint.accepted().get(0).header("circleci-event-type")).isEqualTo("workflow-completed");
        }
    }

    private static ApiClient.Answer awaitState(String state) {
        ApiClient.Answer[] last = new ApiClient.Answer[1];
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100)).until(() -> {
            last[0] = server.api().get("/api/v2/admin/dispatch");
            return state.equals(last[0].text("state"));
        });
        return last[0];
    }

    /** Runs {@code statement} and makes its counts visible in pg_stat_user_tables now, not at a later flush. */
    private static void sqlCounted(String statement) throws SQLException {
        try (Connection c = pg.dataSource().getConnection(); Statement s = c.createStatement()) {
            s.execute(statement);
            s.execute("SELECT pg_stat_force_next_flush()");
            s.execute("SELECT 1");
        }
    }

    private static void sql(String statement) throws SQLException {
        try (Connection c = pg.dataSource().getConnection(); Statement s = c.createStatement()) {
            s.execute(statement);
        }
    }
}
