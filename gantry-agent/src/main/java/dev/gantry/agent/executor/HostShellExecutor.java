package dev.gantry.agent.executor;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * Runs every step on the agent's own host, as the agent's user, ignoring the job's images: only for a trusted
 * single-user set-up that asks for it ({@code gantry agent --executor shell}). Each task has its own {@code HOME}
 * under its directory, so {@code ~/.npm} and friends are per task, but nothing else is isolated: a step can read
 * whatever the agent's user can. The output says so at the top of every job. Stateless and thread-safe.
 */
public final class HostShellExecutor implements Executor {
    private final Duration killGrace;

    /** @param killGrace how long the task's leftover processes have between TERM and KILL when it ends */
    public HostShellExecutor(Duration killGrace) {
        this.killGrace = killGrace;
    }

    @Override
    public String name() {
        return "shell";
    }

    /**
     * The agent's own side of a task, whatever its executor: where the agent runs git for {@code checkout} before
     * copying the result into the task's sandbox. Its processes are killed when it is closed.
     */
    public static Sandbox agentSide(Path taskRoot, Map<String, String> hostEnvironment, Duration killGrace)
            throws IOException {
        SandboxRequest request = new SandboxRequest("agent", taskRoot, null, 0, 0, hostEnvironment, Map.of());
        return new HostSandbox(Files.createDirectories(taskRoot.resolve("home")), request, killGrace);
    }

    @Override
    public Sandbox open(SandboxRequest request, Consumer<String> say) throws SandboxException {
        try {
            Path root = request.taskRoot();
            InCircleci.install(Files.createDirectories(root.resolve("bin")));
            Files.createDirectories(root.resolve("control"));
            return new HostSandbox(Files.createDirectories(root.resolve("home")), request, killGrace);
        } catch (IOException e) {
            // as the docker executor does: the task ends infrastructure_fail with the reason, not as an agent crash
            throw new SandboxException("cannot prepare the task's directory " + request.taskRoot() + ": " + e, e);
        }
    }
}
