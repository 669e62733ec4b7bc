package dev.gantry.server;

/**
 * The server could not start: its schema could not be migrated, its token files could not be written, or its port is
 * taken. Whatever had been started has been stopped again.
 */
public final class ServerStartException extends ServerException {
    public ServerStartException(String message, Throwable cause) {
        super(message, cause);
    }
}
