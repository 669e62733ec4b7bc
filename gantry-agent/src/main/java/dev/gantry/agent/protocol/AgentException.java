package dev.gantry.agent.protocol;

/** The root of the agent's runtime failures; each subclass says what went wrong with which server or task. */
public class AgentException extends RuntimeException {
    public AgentException(String message) {
        super(message);
    }

    public AgentException(String message, Throwable cause) {
        super(message, cause);
    }
}
