package dev.gantry.agent.protocol;

/** The server refused the agent token (401). Fatal: retrying with the same token cannot help. */
public final class UnauthorizedException extends AgentException {
    public UnauthorizedException(String server) {
        super("the server at " + server + " refused the agent token (401): pass the token from the server's "
                + "GANTRY_HOME/agent-token with --token, --token-file or GANTRY_AGENT_TOKEN");
    }
}
