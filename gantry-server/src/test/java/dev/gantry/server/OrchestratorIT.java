package dev.gantry.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.gantry.queue.QueueSettings;
import dev.gantry.queue.Queues;
import dev.gantry.server.orchestrator.WorkflowCommands;
import dev.gantry.server.run.Orchestration;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.sqlobject.SqlObjectPlugin;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The orchestrator on a real server and database: workflows whose jobs are stored as the planner stores them advance
 * through the durable queue as their jobs end (here ended by SQL, as the agent API ends them), and cancel, rerun and
 * approve over HTTP change them under the workflow's lock.
 */
class OrchestratorIT {
    @RegisterExtension
    static final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension(16);

    @TempDir
    static Path home;

    static TestServer server;
    static ApiClient api;
    static Queues queues;
    static Jdbi jdbi;

    UUID projectId;
    UUID pipelineId;

    @BeforeAll
    static void start() {
        server = TestServer.startWithoutPlanBuilder(pg.dataSource(), home);
        api = server.api();
        queues = Queues.start(pg.dataSource(), QueueSettings.defaults(), new SimpleMeterRegistry());
        jdbi = Jdbi.create(pg.dataSource()).installPlugin(new SqlObjectPlugin());
    }

    @AfterAll
    static void stop() {
        queues.close();
        server.close();
    }

    @BeforeEach
    void pipeline() {
        pg.truncate("gantry.project", "gantry_queue.message");
        server.createProject("acme", "app");
        projectId = jdbi.withHandle(h -> h.createQuery("SELECT id FROM gantry.project").mapTo(UUID.class).one());
        pipelineId = UUID.fromString(api.post("/api/v2/project/gantry/acme/app/pipeline",
                "{\"branch\": \"main\"}").text("id"));
    }

    /** Stores a workflow as the planner does: every job blocked. Each job is "name<-required,required:failed". */
    private UUID workflow(String... jobs) {
        UUID workflowId = UUID.randomUUID();
        jdbi.useTransaction(h -> {
            h.execute("INSERT INTO gantry.workflow (id, pipeline_id, name, status, created_at) "
                    + "VALUES (?, ?, 'build-and-test', 'running', now())", workflowId, pipelineId);
            for (String spec : jobs) {
                String[] parts = spec.split("<-");
                String[] nameAndType = parts[0].split("/");
                StringBuilder requires = new StringBuilder("{");
                if (parts.length > 1) {
                    for (String r : parts[1].split(",")) {
                        String[] req = r.split(":");
                        requires.append(requires.length() > 1 ? ", " : "").append('"').append(req[0])
                                .append("\": [\"").append(req.length > 1 ? req[1] : "success").append("\"]");
                    }
                }
                long number = h.createQuery("UPDATE gantry.project SET last_job_number = last_job_number + 1 "
                        + "RETURNING last_job_number").mapTo(Long.class).one();
                h.execute("INSERT INTO gantry.job (id, workflow_id, project_id, number, name, type, status, requires, "
                        + "resource_class, cpu, memory_mb, parallelism, spec, created_at) VALUES (?, ?, ?, ?, ?, ?, "
                        + "'blocked', CAST(? AS jsonb), 'small', 1, 2048, 2, '{}', now())", UUID.randomUUID(),
                        workflowId, projectId, number, nameAndType[0],
                        nameAndType.length > 1 ? nameAndType[1] : "build", requires.append("}").toString());
            }
            Orchestration.requestAdvance(h, queues, workflowId);
        });
        return workflowId;
    }

    private Map<String, String> statuses(UUID workflowId) {
        return jdbi.withHandle(h -> h.createQuery("SELECT name || '#' || attempt AS k, status FROM gantry.job "
                + "WHERE workflow_id = ?").bind(0, workflowId)
                .map((rs, ctx) -> Map.entry(rs.getString(1), rs.getString(2))).list())
                .stream().collect(java.util.stream.Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
    }

    private String workflowStatus(UUID workflowId) {
        return one(String.class, "SELECT status FROM gantry.workflow WHERE id = ?", workflowId);
    }

    private UUID jobId(UUID workflowId, String name) {
        return one(UUID.class, "SELECT id FROM gantry.job WHERE workflow_id = ? AND name = ? ORDER BY attempt DESC "
                + "LIMIT 1", workflowId, name);
    }

    /** Ends a job's tasks and the job as the agent API does, asking for the advance in the same transaction. */
    private void finish(UUID workflowId, String name, String status) {
        UUID job = jobId(workflowId, name);
        jdbi.useTransaction(h -> {
            h.execute("UPDATE gantry.job_task SET status = ?, stopped_at = now() WHERE job_id = ?", status, job);
            h.execute("UPDATE gantry.job SET status = ?, stopped_at = now() WHERE id = ?", status, job);
            Orchestration.requestAdvance(h, queues, workflowId);
        });
    }

    private void awaitStatuses(UUID workflowId, Map<String, String> expected) {
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(statuses(workflowId)).containsAllEntriesOf(expected));
    }

    @Test
    void jobs_start_as_what_they_require_ends_and_the_workflow_settles() {
        UUID wf = workflow("build", "test-a<-build", "test-b<-build", "deploy<-test-a,test-b",
                "report<-test-a:failed");
        awaitStatuses(wf, Map.of("build#1", "queued", "test-a#1", "blocked"));
        assertThat(one(Integer.class, "SELECT count(*) FROM gantry.job_task WHERE job_id = ? AND status = 'queued'",
                jobId(wf, "build")))
                .as("one task per parallel node").isEqualTo(2);

        finish(wf, "build", "success");
        awaitStatuses(wf, Map.of("test-a#1", "queued", "test-b#1", "queued", "deploy#1", "blocked"));
        finish(wf, "test-a", "success");
        awaitStatuses(wf, Map.of("report#1", "not_run", "deploy#1", "blocked"));
        finish(wf, "test-b", "success");
        awaitStatuses(wf, Map.of("deploy#1", "queued"));
        assertThat(workflowStatus(wf)).isEqualTo("running");
        finish(wf, "deploy", "success");
        await().atMost(Duration.ofSeconds(10)).until(() -> workflowStatus(wf).equals("success"));
    }

    @Test
    void a_failed_job_fails_the_workflow_and_a_rerun_from_failed_carries_the_successes_over() {
        UUID wf = workflow("build", "test<-build", "deploy<-test");
        awaitStatuses(wf, Map.of("build#1", "queued"));
        finish(wf, "build", "success");
        awaitStatuses(wf, Map.of("test#1", "queued"));
        finish(wf, "test", "failed");
        awaitStatuses(wf, Map.of("deploy#1", "not_run"));
        await().atMost(Duration.ofSeconds(10)).until(() -> workflowStatus(wf).equals("failed"));

        ApiClient.Answer rerun = api.post("/api/v2/workflow/" + wf + "/rerun", "{\"from_failed\": true}");
        assertThat(rerun.status()).as(rerun.body()).isEqualTo(202);
        UUID again = UUID.fromString(rerun.text("workflow_id"));
        assertThat(statuses(again)).isEqualTo(Map.of("build#1", "success", "test#1", "queued", "deploy#1", "blocked"));
        assertThat(one(UUID.class, "SELECT copied_from FROM gantry.job WHERE id = ?", jobId(again, "build")))
                .isEqualTo(jobId(wf, "build"));
        assertThat(one(UUID.class, "SELECT rerun_of FROM gantry.workflow WHERE id = ?", again)).isEqualTo(wf);
    }

    @Test
    void a_rerun_of_all_runs_everything_again_and_a_running_workflow_cannot_be_rerun() {
        UUID wf = workflow("build", "test<-build");
        awaitStatuses(wf, Map.of("build#1", "queued"));
        assertThat(api.post("/api/v2/workflow/" + wf + "/rerun", "{}").status()).isEqualTo(409);

        finish(wf, "build", "success");
        awaitStatuses(wf, Map.of("test#1", "queued"));
        finish(wf, "test", "success");
        await().atMost(Duration.ofSeconds(10)).until(() -> workflowStatus(wf).equals("success"));
        assertThat(api.post("/api/v2/workflow/" + wf + "/rerun", "{\"from_failed\": true}").status())
                .as("nothing failed").isEqualTo(400);

        ApiClient.Answer rerun = api.send("POST", "/api/v2/workflow/" + wf + "/rerun",
                java.net.http.HttpRequest.BodyPublishers.noBody());
        assertThat(rerun.status()).as(rerun.body()).isEqualTo(202);
        assertThat(statuses(UUID.fromString(rerun.text("workflow_id"))))
                .isEqualTo(Map.of("build#1", "queued", "test#1", "blocked"));
    }

    @Test
    void a_rerun_of_chosen_jobs_runs_them_and_what_is_downstream_and_a_sparse_tree_drops_the_unconnected() {
        UUID wf = workflow("build", "lint", "test<-build", "deploy<-test", "docs");
        awaitStatuses(wf, Map.of("build#1", "queued", "lint#1", "queued", "docs#1", "queued"));
        finish(wf, "build", "success");
        finish(wf, "lint", "success");
        finish(wf, "docs", "failed");
        awaitStatuses(wf, Map.of("test#1", "queued"));
        finish(wf, "test", "success");
        awaitStatuses(wf, Map.of("deploy#1", "queued"));
        finish(wf, "deploy", "success");
        await().atMost(Duration.ofSeconds(10)).until(() -> workflowStatus(wf).equals("failed"));
        String test = "\"" + jobId(wf, "test") + "\"";

        ApiClient.Answer chosen = api.post("/api/v2/workflow/" + wf + "/rerun", "{\"jobs\": [" + test + "]}");
        ApiClient.Answer sparse = api.post("/api/v2/workflow/" + wf + "/rerun",
                "{\"jobs\": [" + test + "], \"sparse_tree\": true}");

        assertThat(chosen.status()).as(chosen.body()).isEqualTo(202);
        assertThat(statuses(UUID.fromString(chosen.text("workflow_id")))).isEqualTo(Map.of("build#1", "success",
                "lint#1", "success", "docs#1", "failed", "test#1", "queued", "deploy#1", "blocked"));
        assertThat(statuses(UUID.fromString(sparse.text("workflow_id")))).as("only test, its upstream and downstream")
                .isEqualTo(Map.of("build#1", "success", "test#1", "queued", "deploy#1", "blocked"));
        assertThat(api.post("/api/v2/workflow/" + wf + "/rerun", "{\"jobs\": [\"" + UUID.randomUUID() + "\"]}")
                .text("message")).contains("is not a job of workflow");
        assertThat(api.post("/api/v2/workflow/" + wf + "/rerun", "{\"jobs\": [" + test + "], \"from_failed\": true}")
                .status()).isEqualTo(400);
        assertThat(api.post("/api/v2/workflow/" + wf + "/rerun", "{\"sparse_tree\": true}").status())
                .isEqualTo(400);
        assertThat(api.post("/api/v2/workflow/" + wf + "/rerun", "{\"enable_ssh\": true}").text("message"))
                .contains("SSH");
    }

    @Test
    void a_job_canceled_by_its_number_stops_its_dependents_while_the_rest_of_the_workflow_goes_on() {
        UUID wf = workflow("build", "test<-build", "lint");
        awaitStatuses(wf, Map.of("build#1", "queued", "lint#1", "queued"));

        ApiClient.Answer canceled = api.post("/api/v2/project/gh/acme/app/job/1/cancel", "");
        assertThat(canceled.status()).as(canceled.body()).isEqualTo(202);
        assertThat(statuses(wf)).containsEntry("build#1", "canceled").containsEntry("test#1", "not_run")
                .containsEntry("lint#1", "queued");
        assertThat(one(Integer.class, "SELECT count(*) FROM gantry.job_task WHERE job_id = ? AND status = 'queued'",
                jobId(wf, "build"))).as("its tasks are withdrawn").isZero();
        finish(wf, "lint", "success");
        await().atMost(Duration.ofSeconds(10)).until(() -> workflowStatus(wf).equals("canceled"));

        assertThat(api.post("/api/v2/project/gantry/acme/app/job/1/cancel", "").status()).as("again: no change")
                .isEqualTo(202);
        assertThat(api.post("/api/v2/project/gantry/acme/app/job/99/cancel", "").status()).isEqualTo(404);
    }

    @Test
    void cancel_stops_waiting_jobs_at_once_and_asks_running_ones_to_stop() {
        UUID wf = workflow("build", "lint", "test<-build");
        awaitStatuses(wf, Map.of("build#1", "queued", "lint#1", "queued"));
        UUID build = jobId(wf, "build");
        // An agent has claimed node 0 of build; node 1 still waits.
        jdbi.useHandle(h -> {
            h.execute("UPDATE gantry.job SET status = 'running' WHERE id = ?", build);
            h.execute("UPDATE gantry.job_task SET status = 'running' WHERE job_id = ? AND node_index = 0", build);
        });

        assertThat(api.post("/api/v2/workflow/" + wf + "/cancel", "{}").status()).isEqualTo(202);

        assertThat(statuses(wf)).isEqualTo(Map.of("build#1", "running", "lint#1", "canceled", "test#1", "canceled"));
        assertThat(workflowStatus(wf)).isEqualTo("canceled");
        assertThat(one(Boolean.class, "SELECT cancel_requested FROM gantry.job WHERE id = ?", build)).isTrue();
        assertThat(list("SELECT status FROM gantry.job_task WHERE job_id = ? ORDER BY node_index", build))
                .containsExactly("running", "canceled");
        assertThat(api.post("/api/v2/workflow/" + wf + "/cancel", "{}").status()).as("idempotent").isEqualTo(202);
        assertThat(api.post("/api/v2/workflow/" + UUID.randomUUID() + "/cancel", "{}").status()).isEqualTo(404);
        assertThat(api.post("/api/v2/workflow/not-a-uuid/cancel", "{}").status()).isEqualTo(404);
    }

    @Test
    void an_approval_holds_the_workflow_until_approved_once() {
        UUID wf = workflow("build", "hold/approval<-build", "deploy<-hold");
        awaitStatuses(wf, Map.of("build#1", "queued"));
        finish(wf, "build", "success");
        awaitStatuses(wf, Map.of("hold#1", "on_hold"));
        await().atMost(Duration.ofSeconds(10)).until(() -> workflowStatus(wf).equals("on_hold"));
        UUID hold = jobId(wf, "hold");
        assertThat(api.post("/api/v2/workflow/" + wf + "/approve/" + jobId(wf, "build"), "{}").status())
                .as("not an approval").isEqualTo(404);

        assertThat(api.post("/api/v2/workflow/" + wf + "/approve/" + hold, "{}").status()).isEqualTo(202);

        assertThat(statuses(wf)).containsEntry("hold#1", "success").containsEntry("deploy#1", "queued");
        assertThat(workflowStatus(wf)).isEqualTo("running");
        ApiClient.Answer twice = api.post("/api/v2/workflow/" + wf + "/approve/" + hold, "{}");
        assertThat(twice.status()).isEqualTo(409);
        assertThat(twice.text("message")).contains("success");
    }

    @Test
    void a_job_that_lost_its_agent_is_retried_once_as_a_new_job() {
        UUID wf = workflow("build", "test<-build");
        awaitStatuses(wf, Map.of("build#1", "queued"));
        long firstNumber = number(jobId(wf, "build"));
        finish(wf, "build", "infrastructure_fail");
        awaitStatuses(wf, Map.of("build#1", "infrastructure_fail", "build#2", "queued", "test#1", "blocked"));
        assertThat(number(jobId(wf, "build"))).isGreaterThan(firstNumber);
        assertThat(workflowStatus(wf)).isEqualTo("running");

        finish(wf, "build", "infrastructure_fail");
        awaitStatuses(wf, Map.of("build#2", "infrastructure_fail", "test#1", "not_run"));
        await().atMost(Duration.ofSeconds(10)).until(() -> workflowStatus(wf).equals("failed"));
        assertThat(statuses(wf)).hasSize(3);
    }

    @Test
    void a_new_pipeline_on_a_branch_cancels_the_older_running_workflows_when_the_project_says_so() {
        UUID older = workflow("build");
        awaitStatuses(older, Map.of("build#1", "queued"));
        OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
        assertThat(cancelRedundant("main", 2, now)).as("the project does not auto-cancel").isZero();

        jdbi.useHandle(h -> h.execute("UPDATE gantry.project SET auto_cancel_redundant = true"));
        assertThat(cancelRedundant("other", 2, now)).isZero();
        assertThat(cancelRedundant("main", 1, now)).as("only older pipelines").isZero();
        int onDefault = jdbi.inTransaction(h -> WorkflowCommands.cancelRedundant(h, projectId, "main", "main", 2,
                now));
        assertThat(onDefault).as("never on the default branch").isZero();
        assertThat(cancelRedundant("main", 2, now)).isEqualTo(1);
        assertThat(workflowStatus(older)).isEqualTo("canceled");
        assertThat(statuses(older)).isEqualTo(Map.of("build#1", "canceled"));
    }

    private int cancelRedundant(String branch, long number, OffsetDateTime now) {
        return jdbi.inTransaction(h -> WorkflowCommands.cancelRedundant(h, projectId, branch, "develop", number,
                now));
    }

    private long number(UUID job) {
        return one(Long.class, "SELECT number FROM gantry.job WHERE id = ?", job);
    }

    /** The one value {@code sql} selects. */
    private static <T> T one(Class<T> type, String sql, Object... arguments) {
        return jdbi.withHandle(h -> {
            var query = h.createQuery(sql);
            for (int i = 0; i < arguments.length; i++) {
                query.bind(i, arguments[i]);
            }
            return query.mapTo(type).one();
        });
    }

    private static List<String> list(String sql, Object... arguments) {
        return jdbi.withHandle(h -> {
            var query = h.createQuery(sql);
            for (int i = 0; i < arguments.length; i++) {
                query.bind(i, arguments[i]);
            }
            return query.mapTo(String.class).list();
        });
    }
}
