package dev.gantry.agent.executor;

/**
 * A task's sandbox could not be made or kept for a reason outside the job: an image that cannot be pulled, a
 * container runtime that does not answer, a container that died under the steps. The task ends as
 * {@code infrastructure_fail} with this message, which names the image or runtime and what it said.
 */
public final class SandboxException extends Exception {
    public SandboxException(String message) {
        super(message);
    }

    public SandboxException(String message, Throwable cause) {
        super(message, cause);
    }
}
