package dev.gantry.db;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Finds the server running on a data directory, from the {@code postmaster.pid} PostgreSQL keeps there: line 1 is its
 * PID, line 4 its port, line 8 its status ({@code starting}, {@code ready}, {@code stopping}). Stateless.
 */
final class RunningPostmaster {
    private static final int PORT_LINE = 3;
    private static final int STATUS_LINE = 7;

    private RunningPostmaster() {
    }

    /**
     * The port of the server running on {@code dataDirectory} once it says it is ready; waits up to {@code timeout}
     * for one that is still being created or started.
     *
     * @throws DatabaseStartException if no live server there is ready within the timeout
     */
    static int awaitReadyPort(Path dataDirectory, Duration timeout) {
        Path pidFile = dataDirectory.resolve(StalePostmaster.PID_FILE);
        StalePostmaster.await(() -> readyPort(pidFile).isPresent(), timeout);
        return readyPort(pidFile).orElseThrow(() -> new DatabaseStartException("Another process holds the "
                + "PostgreSQL data directory " + dataDirectory + ", but no server there was ready within "
                + SettingValues.format(timeout) + " (see " + pidFile + ")."));
    }

    /** The postmaster running on {@code dataDirectory}, if its pid file names a running process. */
    static Optional<ProcessHandle> process(Path dataDirectory) {
        List<String> lines = StalePostmaster.readLines(dataDirectory.resolve(StalePostmaster.PID_FILE));
        return StalePostmaster.running(lines)
                ? StalePostmaster.parseLong(lines.getFirst()).flatMap(ProcessHandle::of) : Optional.empty();
    }

    private static Optional<Integer> readyPort(Path pidFile) {
        List<String> lines = StalePostmaster.readLines(pidFile);
        if (lines.size() <= STATUS_LINE || !lines.get(STATUS_LINE).strip().equals("ready")) {
            return Optional.empty();
        }
        return StalePostmaster.running(lines) ? StalePostmaster.parseLong(lines.get(PORT_LINE)).map(Long::intValue)
                : Optional.empty();
    }
}
