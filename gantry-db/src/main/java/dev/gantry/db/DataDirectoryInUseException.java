package dev.gantry.db;

import java.nio.file.Path;

/**
 * The embedded server's data directory is locked by another process, which runs (or is starting) its server there:
 * {@code gantry up} is running. {@link Database#startOrAttach} uses that process's server instead.
 */
public final class DataDirectoryInUseException extends DatabaseStartException {
    private final Path dataDirectory;

    DataDirectoryInUseException(Path dataDirectory, String message) {
        super(message);
        this.dataDirectory = dataDirectory;
    }

    /** The locked directory, absolute. */
    public Path dataDirectory() {
        return dataDirectory;
    }
}
