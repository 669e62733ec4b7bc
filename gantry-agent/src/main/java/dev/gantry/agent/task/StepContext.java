package dev.gantry.agent.task;

import dev.gantry.agent.protocol.AgentServer;
import dev.gantry.agent.protocol.Assignment;
import dev.gantry.agent.protocol.TaskRef;
import dev.gantry.config.plan.PlanJob;
import java.nio.file.Path;
import java.util.Map;

/**
 * What a step needs from its task: the assignment and job, the task's directory and working directory, its base
 * environment, output, server and control. One per task, shared by its steps in turn.
 */
record StepContext(TaskRef task, Assignment assignment, PlanJob job, TaskDirectory dir, Path workingDirectory,
                   Map<String, String> environment, OutputLog log, AgentServer server, TaskControl control,
                   TaskSettings settings) {

    /** A config path: {@code ~} is the task's home, relative paths are under the working directory. */
    Path path(String configPath) {
        return dir.expand(configPath, workingDirectory);
    }

    Executor executor() {
        return settings.executor();
    }
}
