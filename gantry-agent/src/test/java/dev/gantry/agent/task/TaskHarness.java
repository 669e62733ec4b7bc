package dev.gantry.agent.task;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gantry.agent.executor.Executor;
import dev.gantry.agent.executor.HostShellExecutor;
import dev.gantry.agent.protocol.AgentInfo;
import dev.gantry.agent.protocol.Assignment;
import dev.gantry.agent.protocol.HttpAgentServer;
import dev.gantry.agent.protocol.Registration;
import dev.gantry.agent.protocol.RetryPolicy;
import dev.gantry.agent.protocol.TaskOutcome;
import dev.gantry.agent.testing.FakeAgentApi;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/** A fake API on loopback, the real HTTP client, and a way to claim and run one task through them. */
final class TaskHarness implements AutoCloseable {
    final FakeAgentApi api;
    final HttpAgentServer server;
    final Registration registration;
    final TaskSettings settings;
    final CompletionSpool spool;

    /** Tasks on the host shell. */
    TaskHarness(Path workDir) throws IOException, InterruptedException {
        this(workDir, new HostShellExecutor(Duration.ofSeconds(1)), System.getenv());
    }

    /** Tasks on {@code executor}, the agent's environment being {@code hostEnvironment}. */
    TaskHarness(Path workDir, Executor executor, Map<String, String> hostEnvironment)
            throws IOException, InterruptedException {
        api = new FakeAgentApi();
        server = new HttpAgentServer(api.url(), api.token,
                new RetryPolicy(Duration.ofMillis(20), Duration.ofMillis(200), Duration.ofSeconds(5)));
        registration = server.register(new AgentInfo("test", 4, 8192, 40, "default", "0.1.0"), "test");
        settings = new TaskSettings(workDir, api.url().toString(), executor, Duration.ofSeconds(1),
                TaskSettings.DEFAULT_FLUSH_INTERVAL, hostEnvironment, CompletionSpool.DEFAULT_WINDOW);
        spool = new CompletionSpool(workDir, settings.resultWindow());
    }

    Optional<TaskOutcome> run(ObjectNode assignment) throws IOException, InterruptedException {
        api.enqueue(assignment);
        Assignment claimed = server.claim(registration.id(), 4, 8192).orElseThrow();
        return new TaskRunner(server, spool, claimed, registration.heartbeatInterval(), settings).run();
    }

    CompletableFuture<Optional<TaskOutcome>> start(ObjectNode assignment) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return run(assignment);
            } catch (IOException | InterruptedException e) {
                throw new CompletionException(e);
            }
        });
    }

    @Override
    public void close() {
        api.close();
    }
}
