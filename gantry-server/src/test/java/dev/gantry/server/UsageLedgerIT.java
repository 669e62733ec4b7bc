package dev.gantry.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gantry.server.agent.AgentSettings;
import dev.gantry.server.auth.TokenKind;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import java.nio.file.Path;
import java.sql.Connection;
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
 * The usage ledger over HTTP, with agents calling as real agents do (docs/usage.md): a duplicate completion, a lost
 * lease with the agent's late completion, a lost agent's retry and a rerun each charge every task attempt exactly
 * once; a parallel job's retry runs, and charges, only its lost node, and shows the node it carried over as it ran; minutes are started minutes at the fleet's credits per minute; an organization whose charging is off is
 * charged nothing until a backfill, which then gives exactly the ledger of one that was charged all along and
 * charges nothing twice; budget thresholds are recorded once (and, without destinations, sent to no one); the
 * report groups, exports CSV and shows each caller only their organizations.
 */
class UsageLedgerIT {
    @RegisterExtension
    static final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension(32);

    private static final Duration LEASE = Duration.ofSeconds(3);

    @TempDir
    static Path home;

    static TestServer server;
    static AgentClient agent;
    static ApiClient admin;
    RunFixtures acme;
    UUID workflow;
    String agentId;

    /** A ledger row, as the tests compare them. */
    record Row(UUID jobId, int node, int attempt, String organization, String projectName, String jobName,
               String actor, String resourceClass, UUID agentId, long runMs, long minutes, long credits,
               LocalDate day, boolean backfilled) {
        /** What an always-on run and a backfill must agree on, whichever organization ran it. */
        List<Object> charged() {
            return List.of(projectName, jobName, node, attempt, actor, resourceClass, minutes, credits, day);
        }
    }

    @BeforeAll
    static void start() {
        server = TestServer.start(pg.dataSource(), home, new ServerSettings(0, AgentSettings.defaults()
                .withHeartbeatInterval(Duration.ofMillis(300)).withLeaseTimeout(LEASE)
                .withPollTimeout(Duration.ofMillis(300))));
        agent = new AgentClient(server.api().anonymous(), server.token(TokenKind.AGENT));
        admin = server.api();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @BeforeEach
    void clean() {
        pg.truncate("gantry.project", "gantry.agent", "gantry_queue.message", "gantry.usage_charge",
                "gantry.usage_organization", "gantry.usage_month", "gantry.usage_budget_alert");
        acme = new RunFixtures(server.jdbi());
        workflow = acme.workflow("build");
        agentId = agent.registered("host-1");
    }

    @Test
    void a_duplicate_completion_charges_each_node_once() {
        UUID job = acme.job(workflow, "test").parallelism(2).insert();
        AgentClient.Claimed first = accepted(agent.claimed(agentId));
        AgentClient.Claimed second = accepted(agent.claimed(agentId));

        assertThat(agent.complete(first, first.lease(), "success").status()).isEqualTo(200);
        assertThat(agent.complete(second, second.lease(), "failed").status()).isEqualTo(200);
        assertThat(agent.complete(first, first.lease(), "success").status()).as("the repeat").isEqualTo(200);
        assertThat(agent.complete(second, second.lease(), "failed").status()).isEqualTo(200);

        List<Row> rows = charges();
        assertThat(rows).extracting(Row::node).containsExactly(0, 1);
        Row row = rows.getFirst();
        assertThat(row.jobId()).isEqualTo(job);
        assertThat(row.attempt()).isEqualTo(1);
        assertThat(row.organization()).isEqualTo("acme");
        assertThat(row.projectName()).isEqualTo("app");
        assertThat(row.jobName()).isEqualTo("test");
        assertThat(row.actor()).as("the pipeline's trigger actor").isEqualTo("admin");
        assertThat(row.resourceClass()).isEqualTo("medium");
        assertThat(row.agentId()).isEqualTo(UUID.fromString(agentId));
        assertThat(row.minutes()).isEqualTo(1);
        assertThat(row.credits()).as("medium: 10 credits a minute").isEqualTo(10);
        assertThat(row.day()).isEqualTo(LocalDate.now(ZoneOffset.UTC));
        assertThat(row.backfilled()).isFalse();
        assertThat(rows.get(1).credits()).as("a failed task is charged for its time as well").isEqualTo(10);
    }

    @Test
    void a_task_end_never_waits_for_its_months_lock_which_only_the_ledgers_workers_take() throws Exception {
        acme.job(workflow, "first").insert();
        AgentClient.Claimed first = accepted(agent.claimed(agentId));
        agent.complete(first, first.lease(), "success");
        server.awaitUsageCounted();
        acme.job(workflow, "second").insert();
        AgentClient.Claimed second = accepted(agent.claimed(agentId));

        try (Connection reporting = pg.dataSource().getConnection()) {
            reporting.setAutoCommit(false); // a long report, or another organization's busy month, holds the row
            reporting.createStatement().execute("SELECT * FROM gantry.usage_month WHERE organization = 'acme' "
                    + "FOR UPDATE");
            assertThat(agent.complete(second, second.lease(), "success").status())
                    .as("the end commits with its charge; counting it waits for the lock").isEqualTo(200);
            assertThat(charges()).hasSize(2);
            assertThat(monthCredits("acme")).isEqualTo(10);
            reporting.rollback();
        }
        server.awaitUsageCounted();
        assertThat(monthCredits("acme")).isEqualTo(20);
    }

    @Test
    void minutes_are_started_minutes() {
        acme.job(workflow, "test").resourceClass("large", 4, 8192).insert();
        AgentClient.Claimed task = accepted(agent.claimed(agentId));
        // It has run a minute and a second by the time it completes.
        server.jdbi().useHandle(h -> h.execute(
                "UPDATE gantry.job_task SET started_at = started_at - interval '61 seconds'"));

        agent.complete(task, task.lease(), "success");

        Row row = charges().getFirst();
        assertThat(row.runMs()).isBetween(61_000L, 119_999L);
        assertThat(row.minutes()).isEqualTo(2);
        assertThat(row.credits()).as("large: 20 credits a minute").isEqualTo(40);
    }

    @Test
    void a_task_given_up_by_the_sweeper_is_charged_once_and_its_late_result_changes_nothing() {
        UUID job = acme.job(workflow, "test").insert();
        AgentClient.Claimed task = accepted(agent.claimed(agentId));
        await().atMost(Duration.ofSeconds(15)).until(() -> acme.taskStatus(job, 0).equals("infrastructure_fail"));
        List<Row> charged = charges();
        assertThat(charged).hasSize(1);
        assertThat(charged.getFirst().runMs()).as("charged until the give-up").isGreaterThanOrEqualTo(LEASE.toMillis());
        await().atMost(Duration.ofSeconds(10)).until(() -> jobsNamed("test") == 2); // the retry, queued

        ApiClient.Answer late = agent.complete(task, task.lease(), "success");

        assertThat(late.status()).isEqualTo(200);
        assertThat(late.json().has("superseded")).as("it counts: the retry never started").isFalse();
        assertThat(acme.taskStatus(job, 0)).isEqualTo("success");
        assertThat(charges()).isEqualTo(charged);
    }

    @Test
    void a_lost_agents_retry_is_a_second_attempt_charged_once_and_the_superseded_result_charges_nothing() {
        UUID job = acme.job(workflow, "test").insert();
        AgentClient.Claimed lost = accepted(agent.claimed(agentId));
        await().atMost(Duration.ofSeconds(15)).until(() -> acme.taskStatus(job, 0).equals("infrastructure_fail"));
        await().atMost(Duration.ofSeconds(10)).until(() -> jobsNamed("test") == 2);
        String other = agent.registered("host-2");
        AgentClient.Claimed retry = accepted(agent.claimed(other));
        assertThat(retry.jobId()).isNotEqualTo(job);

        assertThat(agent.complete(lost, lost.lease(), "success").json().path("superseded").asBoolean()).isTrue();
        assertThat(agent.complete(retry, retry.lease(), "success").status()).isEqualTo(200);
        assertThat(agent.complete(retry, retry.lease(), "success").status()).isEqualTo(200);

        assertThat(charges()).extracting(Row::jobId, Row::attempt).containsExactlyInAnyOrder(
                tuple(job, 1), tuple(retry.jobId(), 2));
    }

    @Test
    void a_retry_runs_and_charges_only_the_lost_node_and_shows_the_finished_one_as_it_ran() {
        UUID job = acme.job(workflow, "test").parallelism(2).insert();
        acme.job(workflow, "deploy").status("blocked").requires("test").insert();
        AgentClient.Claimed finished = accepted(agent.claimed(agentId));
        AgentClient.Claimed lost = accepted(agent.claimed(agentId)); // and never heard of again
        String layer = runToSuccess(finished);
        await().atMost(Duration.ofSeconds(15)).until(() -> acme.taskStatus(job, lost.nodeIndex())
                .equals("infrastructure_fail"));
        await().atMost(Duration.ofSeconds(10)).until(() -> jobsNamed("test") == 2);
        UUID retry = server.jdbi().withHandle(h -> h.createQuery(
                "SELECT id FROM gantry.job WHERE name = 'test' AND attempt = 2").mapTo(UUID.class).one());

        assertThat(acme.taskStatus(retry, finished.nodeIndex())).as("carried over").isEqualTo("success");
        AgentClient.Claimed again = accepted(agent.claimed(agentId));
        assertThat(again.jobId()).isEqualTo(retry);
        assertThat(again.nodeIndex()).as("only the lost node runs again").isEqualTo(lost.nodeIndex());
        assertThat(agent.claim(agentId, 8, 16384).status()).as("nothing else to run").isEqualTo(204);
        assertThat(agent.complete(again, again.lease(), "success").status()).isEqualTo(200);
        assertThat(acme.jobStatus(retry)).isEqualTo("success");

        String retryJob = "/api/v2/project/gh/acme/app/job/" + acme.number(retry);
        JsonNode details = admin.get(retryJob).json();
        assertThat(details.get("parallel_runs").findValuesAsText("status")).containsExactly("success", "success");
        assertThat(details.get("steps").get(0).get("actions").findValuesAsText("index"))
                .as("the carried node's step").contains(String.valueOf(finished.nodeIndex()));
        assertThat(admin.get(retryJob + "/output?node=" + finished.nodeIndex()).body()).isEqualTo("node zero\n");
        String results = "/api/v2/project/gh/acme/app/" + acme.number(retry);
        assertThat(admin.get(results + "/tests").json().get("items").findValuesAsText("name"))
                .containsExactly("passes");
        assertThat(admin.get(results + "/artifacts/" + finished.nodeIndex() + "/report.txt").body()).isEqualTo("ok");
        AgentClient.Claimed deploy = agent.claimed(agentId);
        assertThat(agent.get(deploy.path() + "/workspace", deploy.lease()).json().get("layers")
                .findValuesAsText("id")).as("the carried node's layer").containsExactly(layer);

        assertThat(charges()).as("each node that ran, once; the carried one not again")
                .extracting(Row::jobId, Row::node).containsExactlyInAnyOrder(
                        tuple(job, 0), tuple(job, 1), tuple(retry, lost.nodeIndex()));
        String today = LocalDate.now(ZoneOffset.UTC).toString();
        ApiClient.Answer backfill = admin.post("/api/v2/admin/usage/backfill", "{\"from\": \"" + today
                + "\", \"to\": \"" + today + "\"}");
        assertThat(backfill.json().path("charged").asInt()).as(backfill.body()).isZero();
    }

    /** Runs the task to success with a step, output, a test, an artifact and a workspace layer; returns the layer. */
    private static String runToSuccess(AgentClient.Claimed task) {
        agent.step(task, task.lease(), 0, "{\"name\": \"make\", \"status\": \"running\", \"output_offset\": 0}");
        agent.output(task, task.lease(), 0, "node zero\n");
        agent.json("POST", task.path() + "/tests", """
                {"tests": [{"classname": "a.B", "name": "passes", "file": null, "result": "success",
                            "run_time": 0.5, "message": null}]}""", task.lease());
        agent.bytes("PUT", task.path() + "/artifacts/report.txt", "ok".getBytes(), task.lease());
        String layer = agent.bytes("PUT", task.path() + "/workspace", "layer".getBytes(), task.lease()).text("id");
        assertThat(agent.complete(task, task.lease(), "success", """
                "steps": [{"index": 0, "name": "make", "status": "success", "exit_code": 0,
                           "output_offset": 0}]""").status()).isEqualTo(200);
        return layer;
    }

    @Test
    void a_rerun_charges_its_own_attempt_to_whoever_reran_it() {
        acme.job(workflow, "test").insert();
        AgentClient.Claimed task = accepted(agent.claimed(agentId));
        agent.complete(task, task.lease(), "failed");
        await().atMost(Duration.ofSeconds(10)).until(() -> workflowStatus(workflow).equals("failed"));
        ApiClient rerunner = user("rerunner", "acme", "member");

        ApiClient.Answer rerun = rerunner.post("/api/v2/workflow/" + workflow + "/rerun", "{\"from_failed\": true}");
        assertThat(rerun.status()).as(rerun.body()).isEqualTo(202);
        AgentClient.Claimed again = accepted(agent.claimed(agentId));
        agent.complete(again, again.lease(), "success");
        agent.complete(again, again.lease(), "success");

        assertThat(charges()).extracting(Row::jobId, Row::actor).containsExactly(
                tuple(task.jobId(), "admin"),
                tuple(again.jobId(), "rerunner"));
    }

    @Test
    void charging_switched_off_then_backfilled_gives_the_ledger_of_an_organization_charged_all_along() {
        assertThat(admin.put("/api/v2/admin/organization/other/charging", "{\"enabled\": false}").json()
                .path("charging").asBoolean()).isFalse();
        RunFixtures other = new RunFixtures(server.jdbi(), "other");
        for (RunFixtures org : List.of(acme, other)) {
            UUID w = org == acme ? workflow : other.workflow("build");
            org.job(w, "test").parallelism(2).insert();
            org.job(w, "big").resourceClass("large", 4, 8192).insert();
        }
        // Both organizations' tasks run the same 2.5 minutes: 3 started minutes each.
        List<AgentClient.Claimed> tasks = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            tasks.add(accepted(agent.claimed(agentId)));
        }
        server.jdbi().useHandle(h -> h.execute(
                "UPDATE gantry.job_task SET started_at = started_at - interval '150 seconds'"));
        for (AgentClient.Claimed task : tasks) {
            assertThat(agent.complete(task, task.lease(), task.nodeIndex() == 1 ? "failed" : "success").status())
                    .isEqualTo(200);
        }
        assertThat(charges()).extracting(Row::organization).containsOnly("acme").hasSize(3);

        String today = LocalDate.now(ZoneOffset.UTC).toString();
        ApiClient.Answer backfill = admin.post("/api/v2/admin/usage/backfill", "{\"org\": \"other\", \"from\": \""
                + today + "\", \"to\": \"" + today + "\"}");
        assertThat(backfill.status()).as(backfill.body()).isEqualTo(200);
        assertThat(backfill.json().path("charged").asInt()).isEqualTo(3);

        List<Row> rows = charges();
        assertThat(rows.stream().filter(r -> r.organization().equals("other")).map(Row::charged))
                .containsExactlyInAnyOrderElementsOf(rows.stream().filter(r -> r.organization().equals("acme"))
                        .map(Row::charged).toList());
        assertThat(rows).filteredOn(r -> r.organization().equals("other")).allMatch(Row::backfilled);
        assertThat(rows).extracting(Row::minutes).containsOnly(3L);
        assertThat(admin.post("/api/v2/admin/usage/backfill", "{\"from\": \"" + today + "\", \"to\": \"" + today
                + "\"}").json().path("charged").asInt()).as("again, over every organization").isZero();
        assertThat(charges()).isEqualTo(rows);
        server.awaitUsageCounted();
        assertThat(monthCredits("other")).isEqualTo(monthCredits("acme")).isEqualTo(2 * 30 + 60);
    }

    @Test
    void each_budget_threshold_is_recorded_once_a_month_and_shown_sent_to_no_one_without_destinations() {
        ApiClient.Answer budget = admin.put("/api/v2/organization/acme/usage-budget", "{\"monthly_credits\": 25}");
        assertThat(budget.status()).as(budget.body()).isEqualTo(200);
        for (int i = 0; i < 4; i++) {
            acme.job(workflow, "test-" + i).insert();
            AgentClient.Claimed task = accepted(agent.claimed(agentId));
            agent.complete(task, task.lease(), "success");
            agent.complete(task, task.lease(), "success");
            server.awaitUsageCounted(); // one count at a time, so that each threshold is crossed by a known total
        }
        // Lowering the budget records nothing more: each threshold was crossed this month already.
        admin.put("/api/v2/organization/acme/usage-budget", "{\"monthly_credits\": 10}");

        JsonNode report = admin.get("/api/v2/insights/usage?org=acme").json();
        JsonNode alerts = report.path("budget_alerts");
        assertThat(alerts).hasSize(2);
        assertThat(alerts.findValuesAsText("threshold_percent")).containsExactly("80", "100");
        assertThat(alerts.findValuesAsText("credits")).as("the month's total as each crossed").containsExactly("20",
                "30");
        assertThat(alerts.get(0).path("budget_credits").asLong()).isEqualTo(25);
        assertThat(alerts.findValues("deliveries")).as("no destination asks for budget alerts").allSatisfy(d ->
                assertThat(d.path("pending").asInt() + d.path("delivered").asInt() + d.path("dead").asInt()).isZero());
        assertThat(report.at("/months/0/credits").asLong()).isEqualTo(40);
        assertThat(report.at("/months/0/monthly_budget_credits").asLong()).isEqualTo(10);
        assertThat(admin.put("/api/v2/organization/acme/usage-budget", "{\"monthly_credits\": 0}").status())
                .isEqualTo(400);
    }

    @Test
    void a_budget_set_below_the_months_credits_records_its_thresholds_at_once() {
        acme.job(workflow, "test").insert();
        AgentClient.Claimed task = accepted(agent.claimed(agentId));
        agent.complete(task, task.lease(), "success");
        server.awaitUsageCounted();

        admin.put("/api/v2/organization/acme/usage-budget", "{\"monthly_credits\": 12}");
        admin.put("/api/v2/organization/acme/usage-budget", "{\"monthly_credits\": 12}");

        assertThat(admin.get("/api/v2/insights/usage?org=acme").json().path("budget_alerts")
                .findValuesAsText("threshold_percent")).containsExactly("80");
    }

    @Test
    void the_report_groups_exports_csv_and_shows_a_caller_only_their_organizations() {
        RunFixtures other = new RunFixtures(server.jdbi(), "other");
        acme.job(workflow, "test").parallelism(2).insert();
        acme.job(workflow, "big").resourceClass("large", 4, 8192).insert();
        other.job(other.workflow("build"), "test").insert();
        for (int i = 0; i < 4; i++) {
            AgentClient.Claimed task = accepted(agent.claimed(agentId));
            agent.complete(task, task.lease(), "success");
        }
        ApiClient viewer = user("watcher", "acme", "viewer");

        JsonNode mine = viewer.get("/api/v2/insights/usage?group-by=resource_class").json();
        assertThat(mine.path("items")).hasSize(2);
        assertThat(mine.at("/items/0/resource_class").asText()).isEqualTo("large");
        assertThat(mine.at("/items/0/credits").asLong()).isEqualTo(20);
        assertThat(mine.at("/items/1/tasks").asLong()).as("acme's two medium nodes, not other's").isEqualTo(2);
        assertThat(mine.at("/items/1").has("org")).isFalse();
        assertThat(mine.at("/total/credits").asLong()).isEqualTo(40);
        assertThat(viewer.get("/api/v2/insights/usage?org=other").status()).isEqualTo(403);

        ApiClient.Answer csv = admin.get("/api/v2/insights/usage?group-by=org,resource_class", "Accept", "text/csv");
        assertThat(csv.header("Content-Type")).startsWith("text/csv");
        assertThat(csv.body().split("\r\n")).containsExactly("org,resource_class,tasks,seconds,minutes,credits",
                "acme,large,1," + seconds(csv, 1) + ",1,20", "acme,medium,2," + seconds(csv, 2) + ",2,20",
                "other,medium,1," + seconds(csv, 3) + ",1,10");
        assertThat(admin.get("/api/v2/insights/usage?group-by=week").status()).isEqualTo(400);
        assertThat(admin.get("/api/v2/insights/usage?from=2026-02-01&to=2026-01-01").status()).isEqualTo(400);
    }

    // ---- helpers

    /** The seconds column of line {@code line} of a CSV answer, which the test cannot know beforehand. */
    private static String seconds(ApiClient.Answer csv, int line) {
        return csv.body().split("\r\n")[line].split(",")[3];
    }

    /** The agent shows it got the task, as its first heartbeat does. */
    private static AgentClient.Claimed accepted(AgentClient.Claimed task) {
        assertThat(agent.heartbeat(task, task.lease()).status()).isEqualTo(200);
        return task;
    }

    private static ApiClient user(String login, String organization, String role) {
        admin.post("/api/v2/user", "{\"login\": \"" + login + "\"}");
        admin.put("/api/v2/organization/" + organization + "/member/" + login, "{\"role\": \"" + role + "\"}");
        return admin.withToken(admin.post("/api/v2/user/" + login + "/token", "{}").text("token"));
    }

    private static List<Row> charges() {
        return server.jdbi().withHandle(h -> h.createQuery("""
                SELECT job_id, node_index, attempt, organization, project_name, job_name, actor, resource_class,
                       agent_id, run_ms, minutes, credits, day, backfilled
                FROM gantry.usage_charge ORDER BY organization, ended_at, node_index""")
                .map((rs, ctx) -> new Row(rs.getObject(1, UUID.class), rs.getInt(2), rs.getInt(3), rs.getString(4),
                        rs.getString(5), rs.getString(6), rs.getString(7), rs.getString(8),
                        rs.getObject(9, UUID.class), rs.getLong(10), rs.getLong(11), rs.getLong(12),
                        rs.getObject(13, LocalDate.class), rs.getBoolean(14))).list());
    }

    private static long monthCredits(String organization) {
        return server.jdbi().withHandle(h -> h.createQuery(
                "SELECT coalesce(sum(credits), 0) FROM gantry.usage_month WHERE organization = ?")
                .bind(0, organization).mapTo(Long.class).one());
    }

    private long jobsNamed(String name) {
        return server.jdbi().withHandle(h -> h.createQuery("SELECT count(*) FROM gantry.job WHERE name = ?")
                .bind(0, name).mapTo(Long.class).one());
    }

    private static String workflowStatus(UUID id) {
        return server.jdbi().withHandle(h -> h.createQuery("SELECT status FROM gantry.workflow WHERE id = ?")
                .bind(0, id).mapTo(String.class).one());
    }
}
