package dev.gantry.agent.task;

import dev.gantry.agent.protocol.Assignment;
import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Runs every step on the agent's own host, as the agent's user, ignoring the job's docker or machine image (which
 * it names at the top of the output so nobody is surprised). The task's own {@code HOME} keeps steps away from the
 * agent's real home. Stateless and thread-safe.
 */
public final class HostShellExecutor implements Executor {
    private static final File NO_INPUT = new File("/dev/null");

    @Override
    public List<String> describe(Assignment.ExecutorImage recorded) {
        String image = recorded == null ? "none"
                : recorded.type() + (recorded.image() == null ? "" : " image " + recorded.image());
        return List.of("Executor: host shell. The job asks for " + image + "; this agent runs its steps on its "
                + "own host shell, not in that image.");
    }

    @Override
    public Process start(List<String> command, Path directory, Map<String, String> environment) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(NO_INPUT));
        builder.environment().clear();
        builder.environment().putAll(environment);
        return builder.start();
    }
}
