package dev.gantry.agent;

import static dev.gantry.agent.testing.Assignments.job;
import static dev.gantry.agent.testing.Assignments.run;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gantry.agent.protocol.HttpAgentServer;
import dev.gantry.agent.protocol.Registration;
import dev.gantry.agent.protocol.RetryPolicy;
import dev.gantry.agent.protocol.UnauthorizedException;
import dev.gantry.agent.executor.HostShellExecutor;
import dev.gantry.agent.task.TaskSettings;
import dev.gantry.agent.testing.Assignments;
import dev.gantry.agent.testing.FakeAgentApi;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AgentIT {
    static final RetryPolicy FAST = new RetryPolicy(Duration.ofMillis(20), Duration.ofMillis(200), Duration.ofSeconds(5));

    @TempDir
    Path work;
    @TempDir
    Path scratch;
    FakeAgentApi api;

    @BeforeEach
    void start() throws Exception {
        api = new FakeAgentApi();
    }

    @AfterEach
    void stop() {
        api.close();
    }

    @Test
    void an_agent_with_room_runs_two_tasks_at_once_and_offers_only_what_is_left() throws Exception {
        ObjectNode a = Assignments.of(job("a", List.of(run("Meet", meet("a", "b")))), "", "main", "x");
        ObjectNode b = Assignments.of(job("b", List.of(run("Meet", meet("b", "a")))), "", "main", "x");
        api.enqueue(a);
        api.enqueue(b);
        List<Registration> registered = new CopyOnWriteArrayList<>();
        Agent agent = agent(api.token, 4, 8192, registered);

        CompletableFuture<Void> loop = CompletableFuture.runAsync(() -> runQuietly(agent));
        try {
            await().atMost(Duration.ofSeconds(20)).until(() -> api.task(Assignments.jobId(a)) != null
                    && api.task(Assignments.jobId(b)) != null && api.task(Assignments.jobId(a)).status() != null
                    && api.task(Assignments.jobId(b)).status() != null);
        } finally {
            agent.close();
        }
        loop.get(10, TimeUnit.SECONDS);

        assertThat(api.task(Assignments.jobId(a)).status()).isEqualTo("success");
        assertThat(api.task(Assignments.jobId(b)).status()).isEqualTo("success");
        assertThat(api.task(Assignments.jobId(a)).offeredCpu).isEqualTo(4);
        assertThat(api.task(Assignments.jobId(a)).offeredMemoryMb).isEqualTo(8192);
        assertThat(api.task(Assignments.jobId(b)).offeredCpu).isEqualTo(2);
        assertThat(api.task(Assignments.jobId(b)).offeredMemoryMb).isEqualTo(4096);
        assertThat(api.registrations()).containsExactly("agent-under-test");
        assertThat(registered).singleElement().satisfies(r -> assertThat(r.heartbeatInterval()).hasMillis(100));
    }

    @Test
    void a_refused_token_is_fatal_and_says_where_the_token_comes_from() {
        Agent agent = agent("gnt_agent_wrong", 2, 4096, new CopyOnWriteArrayList<>());

        assertThatThrownBy(agent::run).isInstanceOf(UnauthorizedException.class)
                .hasMessageContaining("refused the agent token (401)").hasMessageContaining("agent-token");
    }

    @Test
    void close_stops_a_claim_in_progress() throws Exception {
        api.pollTimeoutMs = 10_000;
        Agent agent = agent(api.token, 2, 4096, new CopyOnWriteArrayList<>());
        CompletableFuture<Void> loop = CompletableFuture.runAsync(() -> runQuietly(agent));
        await().atMost(Duration.ofSeconds(10)).until(() -> !api.registrations().isEmpty());

        agent.close();

        loop.get(5, TimeUnit.SECONDS);
    }

    /** A step that succeeds only if the other task's step runs at the same time. */
    private String meet(String self, String other) {
        return "touch " + scratch.resolve(self) + "; for i in $(seq 1 100); do [ -f " + scratch.resolve(other)
                + " ] && exit 0; sleep 0.1; done; exit 1";
    }

    private Agent agent(String token, int cpu, int memoryMb, List<Registration> registered) {
        AgentSettings settings = new AgentSettings(api.url(), token, "agent-under-test", cpu, memoryMb, 40,
                AgentSettings.DEFAULT_POOL, work);
        return new Agent(settings, new HttpAgentServer(api.url(), token, FAST),
                TaskSettings.defaults(work, api.url().toString(),
                        new HostShellExecutor(TaskSettings.DEFAULT_KILL_GRACE), System.getenv()), registered::add);
    }

    private static void runQuietly(Agent agent) {
        try {
            agent.run();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
