package dev.gantry.agent.protocol;

/**
 * The server answered 409 to a call about a task: the agent's lease is no longer the task's current one (the task
 * was given up as lost, or already finished). The agent must stop the task at once and send nothing more about it.
 */
public final class LeaseLostException extends AgentException {
    public LeaseLostException(TaskRef task, String serverMessage) {
        super("lease " + task.lease() + " on task " + task.jobId() + "/" + task.nodeIndex()
                + " is no longer current: " + serverMessage);
    }
}
