package dev.gantry.agent.protocol;

/**
 * The server holds less output than the offset the agent sent from (409 with {@code length}): the agent resends
 * from {@link #length()}.
 */
public final class OutputOffsetException extends AgentException {
    private final long length;

    public OutputOffsetException(TaskRef task, long offset, long length) {
        super("output of task " + task + " sent from offset " + offset + " but the server holds " + length + " bytes");
        this.length = length;
    }

    public long length() {
        return length;
    }
}
