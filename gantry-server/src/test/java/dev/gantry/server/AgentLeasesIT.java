package dev.gantry.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.gantry.server.agent.AgentSettings;
import dev.gantry.server.auth.TokenKind;
import dev.gantry.server.run.Orchestration;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Leases, output, steps and completion over HTTP: heartbeats extend a lease and carry cancels, an expired lease loses
 * its task to the sweeper (infrastructure_fail, a note in the output, the job's outcome and an advance request),
 * and every later call with the old lease is 409; output appends follow the offset rules; the job takes its outcome
 * when its last task completes.
 */
class AgentLeasesIT {
    @RegisterExtension
    static final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension(32);

    private static final Duration LEASE = Duration.ofMillis(1200);

    @TempDir
    static Path home;

    static TestServer server;
    static AgentClient agent;
    RunFixtures runs;
    UUID workflow;
    String agentId;

    @BeforeAll
    static void start() {
        server = TestServer.start(pg.dataSource(), home, new ServerSettings(0, AgentSettings.defaults()
                .withHeartbeatInterval(Duration.ofMillis(200)).withLeaseTimeout(LEASE)
                .withPollTimeout(Duration.ofMillis(500))));
        agent = new AgentClient(server.api().anonymous(), server.token(TokenKind.AGENT));
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
    void heartbeats_keep_a_task_beyond_its_lease_timeout() throws Exception {
        runs.job(workflow, "test").insert();
        AgentClient.Claimed task = agent.claimed(agentId);

        for (int i = 0; i < 12; i++) {
            ApiClient.Answer beat = agent.heartbeat(task, task.lease());
            assertThat(beat.status()).as(beat.body()).isEqualTo(200);
            assertThat(beat.json().get("cancel").asBoolean()).isFalse();
            Thread.sleep(200);
        }

        assertThat(runs.taskStatus(task.jobId(), 0)).isEqualTo("running");
    }

    @Test
    void a_heartbeat_says_cancel_once_the_job_is_being_canceled() {
        UUID job = runs.job(workflow, "test").insert();
        AgentClient.Claimed task = agent.claimed(agentId);
        server.jdbi().useHandle(h -> h.execute("UPDATE gantry.job SET cancel_requested = true WHERE id = ?", job));

        assertThat(agent.heartbeat(task, task.lease()).json().get("cancel").asBoolean()).isTrue();
        assertThat(agent.complete(task, task.lease(), "canceled").status()).isEqualTo(200);
        assertThat(runs.jobStatus(job)).isEqualTo("canceled");
    }

    @Test
    void an_expired_lease_loses_the_task_and_its_job_and_asks_for_an_advance() {
        UUID job = runs.job(workflow, "test").insert();
        AgentClient.Claimed task = agent.claimed(agentId);
        assertThat(agent.heartbeat(task, task.lease()).status()).as("accepts the task").isEqualTo(200);
        assertThat(agent.output(task, task.lease(), 0, "compiling\n").status()).isEqualTo(200);

        await().atMost(Duration.ofSeconds(5)).until(() -> runs.taskStatus(job, 0).equals("infrastructure_fail"));

        assertThat(runs.jobStatus(job)).isEqualTo("infrastructure_fail");
        assertThat(advancesRequested()).containsExactly(workflow.toString());
        assertThat(output(job, 0)).startsWith("compiling\n").contains("agent running this task was lost");
    }

    @Test
    void every_call_with_a_lost_lease_is_409() {
        UUID job = runs.job(workflow, "test").insert();
        AgentClient.Claimed task = agent.claimed(agentId);
        agent.heartbeat(task, task.lease());
        await().atMost(Duration.ofSeconds(5)).until(() -> runs.taskStatus(job, 0).equals("infrastructure_fail"));

        ApiClient.Answer beat = agent.heartbeat(task, task.lease());
        assertThat(beat.status()).isEqualTo(409);
        assertThat(beat.text("message")).contains("lease");
        assertThat(agent.output(task, task.lease(), 0, "late\n").status()).isEqualTo(409);
        assertThat(agent.step(task, task.lease(), 0, "{\"name\": \"x\", \"status\": \"running\", \"output_offset\": 0}")
                .status()).isEqualTo(409);
        assertThat(runs.taskStatus(job, 0)).isEqualTo("infrastructure_fail");
        assertThat(output(job, 0)).doesNotContain("late");
    }

    @Test
    void a_result_that_arrives_after_the_lease_ran_out_counts_while_no_retry_has_started() {
        UUID job = runs.job(workflow, "test").insert();
        AgentClient.Claimed task = agent.claimed(agentId);
        agent.heartbeat(task, task.lease());
        agent.output(task, task.lease(), 0, "compiling\n");
        await().atMost(Duration.ofSeconds(5)).until(() -> runs.taskStatus(job, 0).equals("infrastructure_fail"));
        await().atMost(Duration.ofSeconds(10)).until(() -> jobsNamed("test") == 2); // the retry, queued

        ApiClient.Answer late = agent.complete(task, task.lease(), "success", """
                "output": {"offset": 10, "data": "%s"}""".formatted(
                Base64.getEncoder().encodeToString("linked\n".getBytes(StandardCharsets.UTF_8))));

        assertThat(late.status()).as(late.body()).isEqualTo(200);
        assertThat(late.json().has("superseded")).isFalse();
        assertThat(runs.taskStatus(job, 0)).isEqualTo("success");
        assertThat(runs.jobStatus(job)).isEqualTo("success");
        assertThat(jobsNamed("test")).as("the retry that never started is withdrawn").isEqualTo(1);
        assertThat(workflowStatus()).isEqualTo("success");
        assertThat(output(job, 0)).startsWith("compiling\n").contains("agent running this task was lost")
                .contains("arrived after its lease had run out").endsWith("linked\n");
        assertThat(agent.complete(task, task.lease(), "success").status()).as("a repeat").isEqualTo(200);
        assertThat(agent.claim(agentId, 64, 1 << 20).status()).as("nothing left to run").isEqualTo(204);
    }

    @Test
    void a_result_that_arrives_after_a_retry_started_is_kept_but_does_not_count() {
        UUID job = runs.job(workflow, "test").insert();
        AgentClient.Claimed task = agent.claimed(agentId);
        agent.heartbeat(task, task.lease());
        await().atMost(Duration.ofSeconds(5)).until(() -> runs.taskStatus(job, 0).equals("infrastructure_fail"));
        await().atMost(Duration.ofSeconds(10)).until(() -> jobsNamed("test") == 2);
        AgentClient.Claimed retry = agent.claimed(agentId);

        ApiClient.Answer late = agent.complete(task, task.lease(), "success");

        assertThat(late.status()).as(late.body()).isEqualTo(200);
        assertThat(late.json().get("superseded").asBoolean()).isTrue();
        assertThat(runs.taskStatus(job, 0)).isEqualTo("infrastructure_fail");
        String kept = server.jdbi().withHandle(h -> h.createQuery("SELECT superseded_status FROM gantry.job_task "
                + "WHERE job_id = ?").bind(0, job).mapTo(String.class).one());
        assertThat(kept).isEqualTo("success");
        assertThat(runs.taskStatus(retry.jobId(), 0)).isEqualTo("running");
        assertThat(output(job, 0)).contains("another attempt had started; kept, not counted");
        assertThat(agent.complete(retry, retry.lease(), "success").status()).isEqualTo(200);
        assertThat(workflowStatus()).isEqualTo("success");
    }

    @Test
    void a_wrong_lease_is_409_and_a_missing_one_400() {
        runs.job(workflow, "test").insert();
        AgentClient.Claimed task = agent.claimed(agentId);

        assertThat(agent.heartbeat(task, UUID.randomUUID().toString()).status()).isEqualTo(409);
        ApiClient.Answer missing = agent.heartbeat(task, null);
        assertThat(missing.status()).isEqualTo(400);
        assertThat(missing.text("field")).isEqualTo("Gantry-Lease");
    }

    @Test
    void output_appends_skips_a_resent_overlap_and_refuses_a_gap() {
        UUID job = runs.job(workflow, "test").insert();
        AgentClient.Claimed task = agent.claimed(agentId);

        assertThat(agent.output(task, task.lease(), 0, "hello\n").json().get("length").asLong()).isEqualTo(6);
        assertThat(agent.output(task, task.lease(), 6, "world\n").json().get("length").asLong()).isEqualTo(12);
        // A resend after a timeout: the first 6 bytes are there already.
        assertThat(agent.output(task, task.lease(), 6, "world\nagain\n").json().get("length").asLong())
                .isEqualTo(18);
        assertThat(agent.output(task, task.lease(), 0, "hello\n").json().get("length").asLong()).isEqualTo(18);
        ApiClient.Answer gap = agent.output(task, task.lease(), 25, "lost?\n");

        assertThat(gap.status()).isEqualTo(409);
        assertThat(gap.json().get("length").asLong()).isEqualTo(18);
        assertThat(output(job, 0)).isEqualTo("hello\nworld\nagain\n");
    }

    @Test
    void steps_are_upserted() {
        UUID job = runs.job(workflow, "test").insert();
        AgentClient.Claimed task = agent.claimed(agentId);

        assertThat(agent.step(task, task.lease(), 0, """
                {"name": "Run tests", "status": "running", "exit_code": null, "output_offset": 0,
                 "started_at": "2026-11-30T10:15:00.123Z", "stopped_at": null}""").status()).isEqualTo(200);
        assertThat(agent.step(task, task.lease(), 0, """
                {"name": "Run tests", "status": "failed", "exit_code": 1, "output_offset": 0,
                 "started_at": "2026-11-30T10:15:00.123Z", "stopped_at": "2026-11-30T10:15:02Z"}""").status())
                .isEqualTo(200);

        var row = server.jdbi().withHandle(h -> h.createQuery(
                "SELECT status, exit_code, stopped_at IS NOT NULL AS stopped FROM gantry.job_step WHERE job_id = ?")
                .bind(0, job).mapToMap().one());
        assertThat(row).containsEntry("status", "failed").containsEntry("exit_code", 1).containsEntry("stopped", true);
        ApiClient.Answer bad = agent.step(task, task.lease(), 1, "{\"name\": \"x\", \"status\": \"done\", "
                + "\"output_offset\": 0}");
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.text("field")).isEqualTo("status");
    }

    @Test
    void the_job_takes_its_outcome_when_its_last_task_completes_and_a_repeat_is_200() {
        UUID job = runs.job(workflow, "test").parallelism(2).insert();
        AgentClient.Claimed first = agent.claimed(agentId);
        AgentClient.Claimed second = agent.claimed(agentId);

        assertThat(agent.complete(first, first.lease(), "success").status()).isEqualTo(200);
        assertThat(runs.jobStatus(job)).isEqualTo("running");
        assertThat(advancesRequested()).isEmpty();
        assertThat(agent.complete(second, second.lease(), "failed").status()).isEqualTo(200);

        assertThat(runs.jobStatus(job)).isEqualTo("failed");
        assertThat(workflowStatus()).as("advanced in the completion's transaction").isEqualTo("failed");
        assertThat(advancesRequested()).isEmpty();
        assertThat(agent.complete(second, second.lease(), "failed").status()).isEqualTo(200);
        assertThat(agent.complete(second, first.lease(), "failed").status()).isEqualTo(409);
    }

    @Test
    void an_infrastructure_failure_repeated_after_a_lost_answer_is_200() {
        UUID job = runs.job(workflow, "test").insert();
        AgentClient.Claimed task = agent.claimed(agentId);

        assertThat(agent.complete(task, task.lease(), "infrastructure_fail").status()).isEqualTo(200);
        assertThat(agent.complete(task, task.lease(), "infrastructure_fail").status()).as("a repeat").isEqualTo(200);
        assertThat(agent.complete(task, task.lease(), "success").status()).as("another outcome").isEqualTo(409);
        assertThat(runs.taskStatus(job, 0)).isEqualTo("infrastructure_fail");
    }

    @Test
    void a_completion_records_the_step_ends_and_output_it_carries_once_and_only_under_its_lease() {
        UUID job = runs.job(workflow, "test").insert();
        AgentClient.Claimed task = agent.claimed(agentId);
        agent.output(task, task.lease(), 0, "==> Run\n");
        String carried = """
                "steps": [{"index": 0, "name": "Run", "status": "success", "exit_code": 0, "output_offset": 0,
                           "started_at": "2026-11-30T10:15:00Z", "stopped_at": "2026-11-30T10:15:01Z"}],
                "output": {"offset": 8, "data": "%s"}""".formatted(
                Base64.getEncoder().encodeToString("done\n".getBytes(StandardCharsets.UTF_8)));

        ApiClient.Answer gap = agent.complete(task, task.lease(), "success", carried.replace("\"offset\": 8", "\"offset\": 9"));
        assertThat(gap.status()).isEqualTo(409);
        assertThat(gap.json().get("length").asLong()).isEqualTo(8);
        assertThat(runs.taskStatus(job, 0)).as("a refused completion ends nothing").isEqualTo("running");

        assertThat(agent.complete(task, task.lease(), "success", carried).status()).isEqualTo(200);
        assertThat(agent.complete(task, task.lease(), "success", carried).status()).as("a repeat").isEqualTo(200);

        assertThat(runs.jobStatus(job)).isEqualTo("success");
        assertThat(output(job, 0)).isEqualTo("==> Run\ndone\n");
        var step = server.jdbi().withHandle(h -> h.createQuery(
                "SELECT status, exit_code FROM gantry.job_step WHERE job_id = ?").bind(0, job).mapToMap().list());
        assertThat(step).singleElement().satisfies(row -> assertThat(row).containsEntry("status", "success")
                .containsEntry("exit_code", 0));
        runs.job(workflow, "lint").insert();
        AgentClient.Claimed other = agent.claimed(agentId);
        agent.output(other, other.lease(), 0, "==> Run\n");
        assertThat(agent.complete(other, UUID.randomUUID().toString(), "success", carried).status()).isEqualTo(409);
        assertThat(output(other.jobId(), 0)).isEqualTo("==> Run\n");
        assertThat(runs.taskStatus(other.jobId(), 0)).isEqualTo("running");
    }

    @Test
    void nodes_completing_at_once_settle_their_job_exactly_once() throws Exception {
        int nodes = 8;
        UUID job = runs.job(workflow, "test").parallelism(nodes).insert();
        List<AgentClient.Claimed> tasks = new java.util.ArrayList<>();
        for (int i = 0; i < nodes; i++) {
            tasks.add(agent.claimed(agentId));
        }
        try (var pool = java.util.concurrent.Executors.newFixedThreadPool(nodes)) {
            var done = tasks.stream().map(t -> pool.submit(() -> agent.complete(t, t.lease(), "success").status()))
                    .toList();
            for (var f : done) {
                assertThat(f.get()).isEqualTo(200);
            }
        }

        assertThat(runs.jobStatus(job)).isEqualTo("success");
        assertThat(workflowStatus()).as("advanced once, by the last completion").isEqualTo("success");
        assertThat(advancesRequested()).isEmpty();
    }

    @Test
    void a_task_its_agent_never_accepted_goes_back_to_the_queue_and_keeps_the_jobs_retry() {
        UUID job = runs.job(workflow, "test").insert();
        AgentClient.Claimed unanswered = agent.claimed(agentId); // as if the agent died while the answer came

        await().atMost(Duration.ofSeconds(5)).until(() -> runs.taskStatus(job, 0).equals("queued"));

        assertThat(runs.jobStatus(job)).isEqualTo("queued");
        assertThat(advancesRequested()).isEmpty();
        assertThat(agent.heartbeat(unanswered, unanswered.lease()).status()).isEqualTo(409);
        AgentClient.Claimed again = agent.claimed(agentId);
        assertThat(again.lease()).isNotEqualTo(unanswered.lease());
        assertThat(runs.taskStatus(job, 0)).isEqualTo("running");
    }

    @Test
    void the_first_call_with_a_lease_renews_it_as_a_claim_answered_late_carries_one_about_to_run_out()
            throws Exception {
        UUID job = runs.job(workflow, "test").insert();
        AgentClient.Claimed task = agent.claimed(agentId);
        // As if the server had paused between committing the claim and answering it: little of the lease is left.
        server.jdbi().useHandle(h -> h.execute("UPDATE gantry.job_task SET lease_until = now() + interval '300 ms' "
                + "WHERE job_id = ?", job));

        assertThat(agent.step(task, task.lease(), 0, "{\"name\": \"x\", \"status\": \"running\", \"output_offset\": 0}")
                .status()).isEqualTo(200);
        Thread.sleep(LEASE.toMillis() * 3 / 4); // past the short lease and the sweeper's turns, within the renewed one

        assertThat(runs.taskStatus(job, 0)).isEqualTo("running");
        assertThat(agent.heartbeat(task, task.lease()).status()).isEqualTo(200);
    }

    @Test
    void a_never_accepted_task_of_a_job_canceled_meanwhile_ends_canceled_instead_of_waiting_in_the_queue() {
        UUID job = runs.job(workflow, "test").insert();
        AgentClient.Claimed unanswered = agent.claimed(agentId);
        // As a workflow cancel does to a running job (found by OrchestratorSimulationIT, seed 4).
        server.jdbi().useHandle(h -> h.execute("UPDATE gantry.job SET cancel_requested = true WHERE id = ?", job));

        await().atMost(Duration.ofSeconds(5)).until(() -> runs.taskStatus(job, 0).equals("canceled"));

        assertThat(runs.jobStatus(job)).isEqualTo("canceled");
        assertThat(advancesRequested()).containsExactly(workflow.toString());
        assertThat(agent.heartbeat(unanswered, unanswered.lease()).status()).isEqualTo(409);
    }

    /**
     * The payloads of the advance messages enqueued so far, in any state: the server's orchestrator may already have
     * taken them.
     */
    private static List<String> advancesRequested() {
        return server.jdbi().withHandle(h -> h.createQuery("SELECT payload FROM gantry_queue.message WHERE queue = ?")
                .bind(0, Orchestration.ADVANCE_QUEUE).mapTo(String.class).list());
    }

    private int jobsNamed(String name) {
        return server.jdbi().withHandle(h -> h.createQuery("SELECT count(*) FROM gantry.job WHERE workflow_id = ? "
                + "AND name = ?").bind(0, workflow).bind(1, name).mapTo(Integer.class).one());
    }

    private String workflowStatus() {
        return server.jdbi().withHandle(h -> h.createQuery("SELECT status FROM gantry.workflow WHERE id = ?")
                .bind(0, workflow).mapTo(String.class).one());
    }

    private static String output(UUID job, int node) {
        try {
            return Files.readString(home.resolve("output").resolve(job.toString()).resolve(node + ".log"));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
