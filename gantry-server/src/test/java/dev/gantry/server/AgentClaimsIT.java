package dev.gantry.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gantry.server.agent.AgentSettings;
import dev.gantry.server.auth.TokenKind;
import dev.gantry.server.http.Json;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Registering and claiming over HTTP, placed by the fleet scheduler: oldest first, a task no agent can run passed
 * over, an agent held for an older large task, best fit across agents, no task handed out twice under concurrent
 * claims, long polls that end with 204 or as soon as a task is queued, the
 * assignment's shape, and the agent token's separation from the admin token.
 */
class AgentClaimsIT {
    @RegisterExtension
    static final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension(32);

    private static final Duration POLL_TIMEOUT = Duration.ofMillis(1500);

    @TempDir
    static Path home;

    static TestServer server;
    static AgentClient agent;
    RunFixtures runs;
    UUID workflow;

    @BeforeAll
    static void start() {
        server = TestServer.start(pg.dataSource(), home, new ServerSettings(0, AgentSettings.defaults()
                .withPollTimeout(POLL_TIMEOUT)));
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
        workflow = runs.workflow("build-and-test");
    }

    @Test
    void register_answers_201_with_an_id_and_the_timings() {
        ApiClient.Answer registered = agent.register("host-1", 4, 8192);

        assertThat(registered.status()).as(registered.body()).isEqualTo(201);
        assertThat(UUID.fromString(registered.text("id"))).isNotNull();
        assertThat(registered.json().get("heartbeat_interval_ms").asLong()).isEqualTo(2000);
        assertThat(registered.json().get("lease_timeout_ms").asLong()).isEqualTo(30000);
        assertThat(registered.json().get("poll_timeout_ms").asLong()).isEqualTo(POLL_TIMEOUT.toMillis());
        assertThat(server.count("gantry.agent")).isEqualTo(1);
    }

    @Test
    void the_assignment_has_the_shape_of_the_protocol() {
        UUID job = runs.job(workflow, "test").parallelism(2).insert();
        String agentId = agent.registered("host-1");

        AgentClient.Claimed claimed = agent.claimed(agentId);

        JsonNode expected = json(String.format("""
                {"lease": "%s",
                 "task": {"job_id": "%s", "node_index": 0},
                 "job": {"id": "%s", "number": 1, "name": "test", "attempt": 1, "parallelism": 2,
                         "resource_class": "medium", "cpu": 2, "memory_mb": 4096, "executor": {"type": "docker", "image": "cimg/base:2024.01"},
                         "spec": {"name": "test", "steps": [{"run": {"command": "make"}}]}},
                 "pipeline": {"id": "%s", "number": 1, "branch": "main", "tag": null,
                              "revision": "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678", "parameters": {"deploy": true},
                              "review_id": null, "review_url": null},
                 "workflow": {"id": "%s", "name": "build-and-test"},
                 "project": {"id": "%s", "slug": "gantry/acme/app", "name": "app", "organization_name": "acme",
                             "vcs_url": "/srv/git/app"},
                 "secrets": {}}
                """, claimed.lease(), job, job, runs.pipelineId, workflow, runs.projectId));
        assertThat(claimed.assignment()).isEqualTo(expected);
        assertThat(runs.jobStatus(job)).isEqualTo("running");
        assertThat(runs.taskStatus(job, 0)).isEqualTo("running");
        assertThat(runs.taskStatus(job, 1)).isEqualTo("queued");
    }

    @Test
    void tasks_of_one_class_are_handed_out_oldest_first() {
        UUID first = runs.job(workflow, "a").insert();
        UUID second = runs.job(workflow, "b").insert();
        UUID third = runs.job(workflow, "c").insert();
        String agentId = agent.registered("host-1");

        assertThat(List.of(agent.claimed(agentId).jobId(), agent.claimed(agentId).jobId(),
                agent.claimed(agentId).jobId())).containsExactly(first, second, third);
    }

    @Test
    void a_task_no_agent_could_ever_run_is_passed_over_for_a_younger_one_that_fits() {
        UUID large = runs.job(workflow, "big").resourceClass("large", 4, 8192).insert();
        UUID small = runs.job(workflow, "small").resourceClass("small", 1, 2048).insert();
        String agentId = agent.registered("host-1", 2, 4096);

        assertThat(AgentClient.claimed(agent.claim(agentId, 2, 4096)).jobId()).isEqualTo(small);
        assertThat(runs.taskStatus(large, 0)).isEqualTo("queued");
    }

    @Test
    void an_agent_is_held_for_an_older_large_task_rather_than_given_a_younger_small_one_of_unknown_length() {
        UUID large = runs.job(workflow, "big").resourceClass("large", 4, 8192).insert();
        UUID small = runs.job(workflow, "small").resourceClass("small", 1, 2048).insert();
        String agentId = agent.registered("host-1", 4, 8192);

        // Busy with half of itself: the large task must wait for it, and the small one must not take its place.
        assertThat(agent.claim(agentId, 2, 4096).status()).isEqualTo(204);
        assertThat(AgentClient.claimed(agent.claim(agentId, 4, 8192)).jobId()).isEqualTo(large);
        assertThat(runs.taskStatus(small, 0)).isEqualTo("queued");
    }

    @Test
    void a_task_goes_to_the_agent_it_packs_best_onto() {
        UUID first = runs.job(workflow, "first").insert();
        String busy = agent.registered("busy", 8, 16384);
        assertThat(agent.claimed(busy).jobId()).isEqualTo(first);
        String idle = agent.registered("idle", 8, 16384);
        UUID second = runs.job(workflow, "second").insert();

        // Best fit: the half-used agent takes it, and the empty one stays whole for a large job.
        assertThat(agent.claim(idle, 8, 16384).status()).isEqualTo(204);
        assertThat(AgentClient.claimed(agent.claim(busy, 6, 12288)).jobId()).isEqualTo(second);
    }

    @Test
    void a_macos_job_runs_only_in_the_macos_pool_and_does_not_hold_up_the_others() {
        UUID mac = runs.job(workflow, "ios").insert();
        server.jdbi().useHandle(h -> h.execute("UPDATE gantry.job SET executor = "
                + "'{\"type\": \"macos\", \"image\": \"xcode 15.4\"}' WHERE id = ?", mac));
        UUID linux = runs.job(workflow, "api").insert();
        String linuxAgent = agent.registered("linux");
        String macAgent = agent.registeredInPool("mac", "macos");

        assertThat(agent.claimed(linuxAgent).jobId()).isEqualTo(linux);
        assertThat(agent.claim(linuxAgent, 64, 1 << 20).status()).isEqualTo(204);
        assertThat(agent.claimed(macAgent).jobId()).isEqualTo(mac);
        assertThat(agent.post(AgentClient.PREFIX + "/register", "{\"name\": \"x\", \"cpu\": 1, \"memory_mb\": 1, "
                + "\"pool\": \"Not A Pool\"}").status()).isEqualTo(400);
    }

    @Test
    void canceled_and_cancel_requested_jobs_are_not_handed_out() {
        runs.job(workflow, "canceling").cancelRequested().insert();
        runs.job(workflow, "canceled").status("canceled").queuedTasks(true).insert();
        runs.job(workflow, "blocked").status("blocked").queuedTasks(true).insert();
        String agentId = agent.registered("host-1");

        assertThat(agent.claim(agentId, 64, 1 << 20).status()).isEqualTo(204);
    }

    @Test
    void concurrent_claims_never_get_the_same_task() throws Exception {
        int tasks = 30;
        for (int i = 0; i < tasks; i++) {
            runs.job(workflow, "job-" + i).insert();
        }
        Set<String> handedOut = ConcurrentHashMap.newKeySet();
        List<String> all = java.util.Collections.synchronizedList(new ArrayList<>());
        try (ExecutorService pool = Executors.newFixedThreadPool(4)) {
            List<Future<?>> agents = new ArrayList<>();
            for (int a = 0; a < 4; a++) {
                String agentId = agent.registered("host-" + a);
                agents.add(pool.submit(() -> {
                    while (true) {
                        ApiClient.Answer answer = agent.claim(agentId, 64, 1 << 20);
                        if (answer.status() == 204) {
                            return null;
                        }
                        AgentClient.Claimed claimed = AgentClient.claimed(answer);
                        handedOut.add(claimed.jobId() + "/" + claimed.nodeIndex());
                        all.add(claimed.lease());
                    }
                }));
            }
            for (Future<?> f : agents) {
                f.get();
            }
        }
        assertThat(all).hasSize(tasks);
        assertThat(handedOut).hasSize(tasks);
        assertThat(server.count("gantry.job_task WHERE status = 'running'")).isEqualTo(tasks);
    }

    @Test
    void a_claim_with_nothing_to_do_answers_204_after_the_poll_timeout() {
        String agentId = agent.registered("host-1");
        long start = System.nanoTime();

        ApiClient.Answer answer = agent.claim(agentId, 64, 1 << 20);

        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(answer.status()).isEqualTo(204);
        assertThat(took).isBetween(POLL_TIMEOUT.minusMillis(50), POLL_TIMEOUT.plusSeconds(1));
    }

    @Test
    void a_waiting_claim_returns_within_a_second_of_a_task_being_queued() throws Exception {
        ServerSettings longPoll = new ServerSettings(0, AgentSettings.defaults().withPollTimeout(Duration.ofSeconds(10)));
        try (TestServer patient = TestServer.start(pg.dataSource(), home, longPoll)) {
            CompletableFuture<ApiClient.Answer> waiting = waitingClaim(patient).claim();
            Thread.sleep(500);
            assertThat(waiting).isNotDone();

            UUID job = runs.job(workflow, "late").insert();
            long queued = System.nanoTime();
            patient.server().taskWakeups().tasksQueued();
            ApiClient.Answer answer = waiting.get();

            assertThat(Duration.ofNanos(System.nanoTime() - queued)).isLessThan(Duration.ofSeconds(1));
            assertThat(AgentClient.claimed(answer).jobId()).isEqualTo(job);
        }
    }

    @Test
    void a_waiting_claim_finds_a_task_queued_without_a_wake_up_at_its_next_recheck() throws Exception {
        String agentId = agent.registered("host-1");
        CompletableFuture<ApiClient.Answer> waiting = CompletableFuture.supplyAsync(
                () -> agent.claim(agentId, 64, 1 << 20));
        Thread.sleep(200);

        UUID job = runs.job(workflow, "from-another-server").insert();

        assertThat(AgentClient.claimed(waiting.get()).jobId()).isEqualTo(job);
    }

    @Test
    void an_idle_agent_s_waiting_claim_marks_it_seen_once_a_heartbeat_not_only_when_it_starts() throws Exception {
        ServerSettings longPoll = new ServerSettings(0, AgentSettings.defaults()
                .withHeartbeatInterval(Duration.ofMillis(200)).withLeaseTimeout(Duration.ofSeconds(2))
                .withPollTimeout(Duration.ofSeconds(10)));
        try (TestServer patient = TestServer.start(pg.dataSource(), home, longPoll)) {
            WaitingClaim waiting = waitingClaim(patient);
            String agentId = waiting.agentId();
            Thread.sleep(300);
            Instant startedWaiting = lastSeen(agentId);

            // Another server's fleet snapshot sees this agent only by its row: three heartbeats of silence while
            // it waits would show it missing until its next poll.
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(lastSeen(agentId))
                    .isAfter(startedWaiting.plusSeconds(2)));
            assertThat(waiting.claim()).as("still the same claim, waiting").isNotDone();
        }
    }

    /** An agent registered on {@code server}, and its claim there, under way. */
    private record WaitingClaim(String agentId, CompletableFuture<ApiClient.Answer> claim) {
    }

    private static WaitingClaim waitingClaim(TestServer server) {
        AgentClient client = new AgentClient(server.api().anonymous(), server.token(TokenKind.AGENT));
        String agentId = client.registered("host-1");
        return new WaitingClaim(agentId, CompletableFuture.supplyAsync(() -> client.claim(agentId, 64, 1 << 20)));
    }

    private static Instant lastSeen(String agentId) {
        return server.jdbi().withHandle(h -> h.createQuery("SELECT last_seen_at FROM gantry.agent WHERE id = ?")
                .bind(0, UUID.fromString(agentId)).mapTo(Instant.class).one());
    }

    @Test
    void an_unknown_agent_gets_404_and_registers_again() {
        String forgotten = agent.registered("host-1");
        server.jdbi().useHandle(h -> h.execute("DELETE FROM gantry.agent WHERE id = ?", UUID.fromString(forgotten)));

        ApiClient.Answer answer = agent.claim(forgotten, 1, 1);

        assertThat(answer.status()).as(answer.body()).isEqualTo(404);
        assertThat(answer.text("message")).contains("register again");
        assertThat(agent.register("host-1", 1, 1).status()).isEqualTo(201);
    }

    @Test
    void a_registration_sent_again_with_its_key_gets_the_same_agent_with_a_new_credential() {
        ApiClient.Answer first = agent.register("host-1", "key-1");
        String lostCredential = first.text("credential");
        ApiClient.Answer again = agent.register("host-1", "key-1"); // the first answer never reached the agent

        assertThat(first.status()).isEqualTo(201);
        assertThat(again.status()).as(again.body()).isEqualTo(200);
        assertThat(again.text("id")).isEqualTo(first.text("id"));
        assertThat(again.text("credential")).isNotEqualTo(lostCredential);
        int agents = server.jdbi().withHandle(h -> h.createQuery("SELECT count(*) FROM gantry.agent")
                .mapTo(Integer.class).one());
        assertThat(agents).as("one agent").isEqualTo(1);
        assertThat(agent.claim(again.text("id"), 1, 1).status()).as("the new credential works").isEqualTo(204);
        ApiClient.Answer withLost = server.api().anonymous().post(AgentClient.PREFIX + "/agents/" + first.text("id")
                + "/claim", "{\"free_cpu\": 1, \"free_memory_mb\": 1}", "Authorization", "Bearer " + lostCredential);
        assertThat(withLost.status()).as("the lost one does not").isEqualTo(404);
        assertThat(agent.register("host-2", "key-1").status()).as("the key of another agent").isEqualTo(409);
        assertThat(agent.register("host-1", "key-2").status()).as("another key, another agent").isEqualTo(201);
    }

    @Test
    void the_agent_api_refuses_the_admin_token_and_no_token() {
        AgentClient withAdmin = new AgentClient(server.api().anonymous(), server.token(TokenKind.ADMIN));

        assertThat(withAdmin.register("host-1", 1, 1).status()).isEqualTo(401);
        ApiClient.Answer none = server.api().anonymous().post(AgentClient.PREFIX + "/register",
                "{\"name\": \"h\", \"cpu\": 1, \"memory_mb\": 1}");
        assertThat(none.status()).isEqualTo(401);
        assertThat(none.header("WWW-Authenticate")).isEqualTo("Bearer");
        assertThat(agent.register("host-1", 1, 1).status()).isEqualTo(201);
    }

    @Test
    void the_user_api_refuses_the_agent_token() {
        ApiClient withAgentToken = server.api().withToken(server.token(TokenKind.AGENT));

        assertThat(withAgentToken.get("/api/v2/project").status()).isEqualTo(401);
        assertThat(server.api().anonymous().get("/api/v2/project", "Authorization",
                "Bearer " + server.token(TokenKind.AGENT)).status()).isEqualTo(401);
    }

    @Test
    void register_refuses_a_body_without_resources() {
        ApiClient.Answer answer = agent.post(AgentClient.PREFIX + "/register", "{\"name\": \"host-1\", \"cpu\": 0}");

        assertThat(answer.status()).isEqualTo(400);
        assertThat(answer.text("field")).isEqualTo("cpu");
    }

    private static JsonNode json(String text) {
        try {
            return Json.MAPPER.readTree(text);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
