package dev.gantry.agent.protocol;

/** The server does not know this agent id (404 on claim), e.g. after it was forgotten: register again. */
public final class UnknownAgentException extends AgentException {
    public UnknownAgentException(String agentId) {
        super("the server does not know agent " + agentId);
    }
}
