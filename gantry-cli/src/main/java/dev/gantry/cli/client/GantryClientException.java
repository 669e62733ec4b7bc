package dev.gantry.cli.client;

/** The server could not be reached, or answered something the command cannot go on from. */
public final class GantryClientException extends RuntimeException {
    public GantryClientException(String message) {
        super(message);
    }

    public GantryClientException(String message, Throwable cause) {
        super(message, cause);
    }
}
