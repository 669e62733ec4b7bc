package dev.gantry.db;

/**
 * The database could not be made ready: the embedded server did not start (the message carries the end of its log),
 * its data directory is in use or unusable, or the configured server could not be reached within the connect
 * timeout. Nothing is left running when this is thrown.
 */
public class DatabaseStartException extends DatabaseException {
    public DatabaseStartException(String message) {
        super(message);
    }

    public DatabaseStartException(String message, Throwable cause) {
        super(message, cause);
    }
}
