package dev.gantry.config.orb;

/**
 * An orb's source directory could not be packed. The message names the file and what is wrong with it, as
 * {@code FILE:LINE:COLUMN: problem} when the problem is at a place in a YAML file.
 */
public final class OrbPackException extends Exception {
    public OrbPackException(String message) {
        super(message);
    }

    public OrbPackException(String message, Throwable cause) {
        super(message, cause);
    }
}
