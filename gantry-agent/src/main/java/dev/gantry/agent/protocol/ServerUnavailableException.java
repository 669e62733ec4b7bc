package dev.gantry.agent.protocol;

/**
 * The server could not be reached, or kept answering with transient errors (5xx, 429), until the call's retry
 * budget ran out. The caller decides whether to go on later (the claim loop does) or give the task up.
 */
public final class ServerUnavailableException extends AgentException {
    public ServerUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
