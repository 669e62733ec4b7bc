package dev.gantry.agent.executor;

import java.io.IOException;
import java.util.function.Consumer;

/**
 * Where a task's processes run: the job's own containers ({@code docker}, the default) or, for a trusted single-user
 * set-up that asks for it, the agent's host shell ({@code shell}). Each task gets its own {@link Sandbox}, opened
 * before its first step and closed after its last. Implementations are thread-safe: an agent runs several tasks at
 * once.
 */
public interface Executor {

    /** The word for this executor on the command line and in the output: {@code docker} or {@code shell}. */
    String name();

    /**
     * Prepares a task's sandbox: for containers, pulls the images and starts the primary and service containers.
     * Progress lines (the pull, what is emulated, limits the runtime cannot set) go to {@code say}.
     *
     * @throws SandboxException when the sandbox cannot be made for a reason outside the job (a pull that failed, a
     *                          runtime that does not answer): the task ends as {@code infrastructure_fail}
     */
    Sandbox open(SandboxRequest request, Consumer<String> say) throws SandboxException, InterruptedException;

    /** Removes what an earlier run of this agent left behind (a crash leaves containers); called once at start. */
    default void removeLeftovers() throws IOException {
    }
}
