package dev.gantry.agent.protocol;

/** The server answered a status the protocol does not allow for the call (a bug on one side or the other). */
public final class ProtocolException extends AgentException {
    private final int status;

    public ProtocolException(String call, int status, String body) {
        super(call + " failed with HTTP " + status + ": " + body);
        this.status = status;
    }

    public int status() {
        return status;
    }
}
