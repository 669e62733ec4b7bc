package dev.gantry.server;

/**
 * A server setting has a value Gantry will not run with. The message names the environment variable and the rule,
 * e.g. {@code GANTRY_PORT must be 0 (any free port) or an integer from 1 to 65535, got 'http'}. Thrown before
 * anything is started.
 */
public final class InvalidServerSettingException extends ServerException {
    public InvalidServerSettingException(String message) {
        super(message);
    }
}
