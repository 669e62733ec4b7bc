package dev.gantry.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gantry.server.agent.AgentSettings;
import dev.gantry.server.auth.TokenKind;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A parallel job one of whose nodes loses its agent is retried with only the nodes that did not succeed: the node that
 * had succeeded is not run (nor charged) again, and the retry shows its result (status, steps, output, tests,
 * artifacts, workspace layer) as its own, through the API, to the jobs that require it, and in the usage ledger.
 */
class RetryOfLostNodesIT {
    @RegisterExtension
    static final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension(32);

    private static final Duration LEASE = Duration.ofSeconds(2);
    private static final String PROJECT = "/api/v2/project/gh/acme/app";

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
                .withHeartbeatInterval(Duration.ofMillis(300)).withLeaseTimeout(LEASE)
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
        pg.truncate("gantry.project", "gantry.agent", "gantry_queue.message", "gantry.usage_charge",
                "gantry.usage_month");
        runs = new RunFixtures(server.jdbi());
        workflow = runs.workflow("build");
        agentId = agent.registered("host-1");
    }

    @Test
    void a_retry_runs_only_the_lost_node_and_shows_the_finished_one_as_it_ran() {
        UUID job = runs.job(workflow, "test").parallelism(2).insert();
        runs.job(workflow, "deploy").status("blocked").requires("test").insert();
        AgentClient.Claimed finished = agent.claimed(agentId);
        AgentClient.Claimed lost = agent.claimed(agentId);
        assertThat(agent.heartbeat(lost, lost.lease()).status()).as("accepted, then never heard of").isEqualTo(200);
        String layer = runToSuccess(finished);

        await().atMost(Duration.ofSeconds(15)).until(() -> runs.taskStatus(job, lost.nodeIndex())
                .equals("infrastructure_fail"));
        await().atMost(Duration.ofSeconds(10)).until(() -> retryOf("test") != null);
        UUID retry = retryOf("test");

        assertThat(runs.taskStatus(retry, finished.nodeIndex())).as("carried over").isEqualTo("success");
        assertThat(runs.taskStatus(retry, lost.nodeIndex())).isEqualTo("queued");
        AgentClient.Claimed again = agent.claimed(agentId);
        assertThat(again.jobId()).isEqualTo(retry);
        assertThat(again.nodeIndex()).as("only the lost node runs again").isEqualTo(lost.nodeIndex());
        assertThat(agent.claim(agentId, 8, 16384).status()).as("nothing else to run").isEqualTo(204);
        assertThat(agent.heartbeat(again, again.lease()).status()).isEqualTo(200);
        assertThat(agent.complete(again, again.lease(), "success").status()).isEqualTo(200);
        assertThat(runs.jobStatus(retry)).isEqualTo("success");

        String retryJob = PROJECT + "/job/" + runs.number(retry);
        JsonNode details = api.get(retryJob).json();
        assertThat(details.get("parallel_runs").findValuesAsText("status")).containsExactly("success", "success");
        assertThat(details.get("steps").get(0).get("actions").findValuesAsText("index"))
                .as("the carried node's step shows").contains(String.valueOf(finished.nodeIndex()));
        assertThat(api.get(retryJob + "/output?node=" + finished.nodeIndex()).body()).isEqualTo("node zero\n");
        String results = PROJECT + "/" + runs.number(retry);
        assertThat(api.get(results + "/tests").json().get("items").findValuesAsText("name"))
                .containsExactly("passes");
        assertThat(api.get(results + "/artifacts").json().get("items").findValuesAsText("path"))
                .containsExactly("report.txt");
        assertThat(api.get(results + "/artifacts/" + finished.nodeIndex() + "/report.txt").body()).isEqualTo("ok");

        AgentClient.Claimed deploy = agent.claimed(agentId);
        assertThat(agent.get(deploy.path() + "/workspace", deploy.lease()).json().get("layers")
                .findValuesAsText("id")).as("the carried node's layer").containsExactly(layer);

        assertThat(charges()).as("each node that ran is charged once, the carried one not again")
                .containsExactlyInAnyOrder(tuple(job, 0), tuple(job, 1), tuple(retry, lost.nodeIndex()));
        String today = LocalDate.now(ZoneOffset.UTC).toString();
        ApiClient.Answer backfill = api.post("/api/v2/admin/usage/backfill", "{\"from\": \"" + today
                + "\", \"to\": \"" + today + "\"}");
        assertThat(backfill.status()).as(backfill.body()).isEqualTo(200);
        assertThat(backfill.json().path("charged").asInt()).as("the backfill finds nothing uncharged").isZero();
    }

    /** Runs the task to success with a step, output, a test, an artifact and a workspace layer; returns the layer. */
    private static String runToSuccess(AgentClient.Claimed task) {
        assertThat(agent.heartbeat(task, task.lease()).status()).isEqualTo(200);
        agent.step(task, task.lease(), 0, "{\"name\": \"make\", \"status\": \"running\", \"output_offset\": 0}");
        agent.output(task, task.lease(), 0, "node zero\n");
        agent.json("POST", task.path() + "/tests", """
                {"tests": [{"classname": "a.B", "name": "passes", "file": null, "result": "success",
                            "run_time": 0.5, "message": null}]}""", task.lease());
        assertThat(agent.bytes("PUT", task.path() + "/artifacts/report.txt", "ok".getBytes(), task.lease())
                .status()).isEqualTo(201);
        String layer = agent.bytes("PUT", task.path() + "/workspace", "layer".getBytes(), task.lease())
                .text("id");
        assertThat(agent.complete(task, task.lease(), "success", """
                "steps": [{"index": 0, "name": "make", "status": "success", "exit_code": 0,
                           "output_offset": 0}]""").status()).isEqualTo(200);
        return layer;
    }

    private static UUID retryOf(String name) {
        return server.jdbi().withHandle(h -> h.createQuery(
                        "SELECT id FROM gantry.job WHERE name = ? AND attempt = 2")
                .bind(0, name).mapTo(UUID.class).findOne().orElse(null));
    }

    private static List<Object> charges() {
        List<Object> rows = new ArrayList<>();
        server.jdbi().useHandle(h -> h.createQuery("SELECT job_id, node_index FROM gantry.usage_charge")
                .map((rs, ctx) -> tuple(rs.getObject(1, UUID.class), rs.getInt(2))).forEach(rows::add));
        return rows;
    }
}
