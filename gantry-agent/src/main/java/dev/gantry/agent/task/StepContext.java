package dev.gantry.agent.task;

import dev.gantry.agent.executor.Sandbox;
import dev.gantry.agent.protocol.AgentServer;
import dev.gantry.agent.protocol.Assignment;
import dev.gantry.agent.protocol.TaskRef;
import dev.gantry.config.plan.PlanJob;
import java.nio.file.Path;
import java.util.Map;

/**
 * What a step needs from its task: the assignment and job, the task's directory on the host, its sandbox, the
 * agent's own side (where checkout runs git), the working directory (a path in the sandbox), its base environment,
 * output, the masker for what a step sends other than output (test results, artifact paths), server and control. One
 * per task, shared by its steps in turn.
 */
record StepContext(TaskRef task, Assignment assignment, PlanJob job, TaskDirectory dir, Sandbox sandbox,
                   Sandbox agentSide, Path workingDirectory, Map<String, String> environment, OutputLog log,
                   SecretMasker masker, AgentServer server, TaskControl control, TaskSettings settings) {

    /** A config path in the sandbox: {@code ~} is the home, relative paths are under the working directory. */
    Path path(String configPath) {
        return expand(configPath, sandbox.home(), workingDirectory);
    }

    /**
     * A config path as CircleCI reads it: {@code ~} and {@code ~/x} are in {@code home}, absolute paths stay as they
     * are, anything else is relative to {@code base}.
     */
    static Path expand(String path, Path home, Path base) {
        if (path.equals("~")) {
            return home;
        }
        if (path.startsWith("~/")) {
            return home.resolve(path.substring(2)).normalize();
        }
        Path p = Path.of(path);
        return p.isAbsolute() ? p.normalize() : base.resolve(p).normalize();
    }
}
