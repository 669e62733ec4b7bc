package dev.gantry.db;

/**
 * The root of this module's failures: a setting that cannot be used, a server that does not start, a database that
 * cannot be reached. Each message names what failed and what an operator can do about it, and never contains a
 * password.
 */
public class DatabaseException extends RuntimeException {
    public DatabaseException(String message) {
        super(message);
    }

    public DatabaseException(String message, Throwable cause) {
        super(message, cause);
    }
}
