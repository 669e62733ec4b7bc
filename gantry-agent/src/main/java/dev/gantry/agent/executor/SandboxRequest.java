package dev.gantry.agent.executor;

import dev.gantry.config.plan.Executor.Docker;
import java.nio.file.Path;
import java.util.Map;

/**
 * What a task asks of its sandbox.
 *
 * @param name            a name unique to the task on this agent, for containers and logs ({@code job-1a2b3c4d-0})
 * @param taskRoot        the task's own directory on the agent's host (mode 0700): the sandbox keeps what it needs
 *                        on the host there and nowhere else
 * @param executor        the job's executor as compiled (null for a job without one)
 * @param cpu             the CPUs of the job's resource class; 0 when the server did not say
 * @param memoryMb        its memory in MiB; 0 when the server did not say
 * @param hostEnvironment the agent's own environment (the host shell's base; never passed into a container)
 * @param variables       the job's variables, for {@code $VAR} references in image {@code auth}
 */
public record SandboxRequest(String name, Path taskRoot, dev.gantry.config.plan.Executor executor, int cpu,
                             int memoryMb, Map<String, String> hostEnvironment, Map<String, String> variables) {
    public SandboxRequest {
        hostEnvironment = Map.copyOf(hostEnvironment);
        variables = Map.copyOf(variables);
    }

    /** The job's docker executor, or null when it has another kind. */
    public Docker docker() {
        return executor instanceof Docker d ? d : null;
    }
}
