package dev.gantry.server;

/**
 * The root of the server's own failures. Each message names what failed and what an operator or client can do about
 * it; none carries SQL text or a secret.
 */
public class ServerException extends RuntimeException {
    public ServerException(String message) {
        super(message);
    }

    public ServerException(String message, Throwable cause) {
        super(message, cause);
    }
}
