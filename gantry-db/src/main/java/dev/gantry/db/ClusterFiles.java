package dev.gantry.db;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * What the embedded server keeps beside its data directory {@code D} (usually {@code $GANTRY_HOME/postgres}), in the
 * same parent directory:
 * <ul>
 *   <li>{@code D.lock}: held while a process runs the cluster;
 *   <li>{@code D.log}: the server's output, 0600;
 *   <li>{@code D.password}: the superuser's password, 0600 (see {@link PasswordFile});
 *   <li>{@code D-socket/}: 0700, the server's Unix socket {@code .s.PGSQL.<port>}, so only this user can reach it.
 * </ul>
 *
 * @param dataDirectory absolute and normalized
 */
record ClusterFiles(Path dataDirectory) {
    /** The longest socket path PostgreSQL accepts on macOS (Linux allows 107 bytes): {@code sun_path} less a NUL. */
    static final int MAX_SOCKET_PATH_BYTES = 103;

    Path lockFile() {
        return sibling(".lock");
    }

    Path logFile() {
        return sibling(".log");
    }

    Path passwordFile() {
        return sibling(".password");
    }

    Path socketDirectory() {
        return sibling("-socket");
    }

    /** The socket a server listening on {@code port} creates; without TCP, the port only names the socket. */
    Path socketFile(int port) {
        return socketDirectory().resolve(".s.PGSQL." + port);
    }

    /**
     * @throws DatabaseStartException if PostgreSQL cannot use these paths: a socket path too long for the system, or
     *                                a data directory that pg_ctl cannot pass through its shell command line
     */
    void requireUsable(int port) {
        String socket = socketFile(port).toString();
        if (socket.getBytes(StandardCharsets.UTF_8).length > MAX_SOCKET_PATH_BYTES) {
            throw new DatabaseStartException("The embedded PostgreSQL's socket " + socket + " would be longer than the "
                    + MAX_SOCKET_PATH_BYTES + " bytes a Unix socket path may have; choose a shorter "
                    + DatabaseSetting.HOME.environmentVariable() + ".");
        }
        // pg_ctl starts the server with sh -c 'postgres -D "<dataDirectory>" ...': in double quotes these are special.
        if (dataDirectory.toString().chars().anyMatch(c -> "\"$`\\".indexOf(c) >= 0)) {
            throw new DatabaseStartException("The PostgreSQL data directory " + dataDirectory + " contains one of "
                    + "\" $ ` \\, which pg_ctl cannot pass to PostgreSQL; choose a "
                    + DatabaseSetting.HOME.environmentVariable() + " without them.");
        }
    }

    private Path sibling(String suffix) {
        return dataDirectory.resolveSibling(dataDirectory.getFileName() + suffix);
    }
}
