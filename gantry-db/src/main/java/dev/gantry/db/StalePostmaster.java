package dev.gantry.db;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * Clears what a dead owner left in a data directory, so that the next start works. Only for a caller that holds the
 * directory's lock, so that no live owner can be using it.
 *
 * <ul>
 *   <li>A JVM killed with SIGKILL leaves its PostgreSQL running, owned by nobody. It is stopped: SIGTERM, which ends a
 *       server without clients at once, then SIGKILL after the timeout, which PostgreSQL recovers from by WAL replay.
 *   <li>A killed server leaves {@code postmaster.pid}. PostgreSQL refuses to start while that file is empty or the PID
 *       in it belongs to any live process, which after a container restart is common, and also while it is an unreaped zombie (where pid 1
 *       does not reap, e.g. a JVM running as pid 1). A file whose PID is not a running server of this directory is
 *       removed. That is safe because PostgreSQL finds a still-attached shared-memory segment from the directory
 *       itself, not from this file.
 *   <li>The killed server's processes take a moment to detach from its shared memory, and until they have, a new
 *       server refuses to start. This waits for that (on Linux, where {@code /proc/sysvipc/shm} shows it).
 * </ul>
 * Stateless.
 */
final class StalePostmaster {
    private static final Logger LOG = LoggerFactory.getLogger(StalePostmaster.class);
    static final String PID_FILE = "postmaster.pid";
    /** In {@code postmaster.pid}: line 1 is the PID, line 7 the shared memory key and segment id. */
    private static final int SHARED_MEMORY_LINE = 6;
    private static final Path SYSV_SHARED_MEMORY = Path.of("/proc/sysvipc/shm");
    private static final long POLL_MILLIS = 20;

    private StalePostmaster() {
    }

    /** @throws DatabaseStartException if a left-over server or its processes do not go within {@code timeout} */
    static void clear(Path dataDirectory, Duration timeout) {
        Path pidFile = dataDirectory.resolve(PID_FILE);
        if (!Files.exists(pidFile)) {
            return;
        }
        // An empty or garbled file (a crash during start-up) also blocks PostgreSQL; with our lock, it is stale.
        List<String> lines = readLines(pidFile);
        String pid = lines.isEmpty() ? "(none)" : lines.getFirst().strip();
        Optional<ProcessHandle> process = parseLong(pid).flatMap(ProcessHandle::of);
        if (process.isPresent() && isRunning(process.get()) && isPostmasterOf(process.get(), dataDirectory)) {
            LOG.warn("Stopping PostgreSQL (PID {}) left running on {} by a process that did not stop it",
                    process.get().pid(), dataDirectory);
            stop(process.get(), timeout);
        } else {
            LOG.info("Removing {}: its PID {} is not a running server of this directory", pidFile, pid);
            delete(pidFile);
        }
        if (lines.size() > SHARED_MEMORY_LINE) {
            String[] keyAndId = lines.get(SHARED_MEMORY_LINE).strip().split("\\s+");
            parseLong(keyAndId[keyAndId.length - 1]).ifPresent(id -> awaitDetached(id, timeout));
        }
    }

    /**
     * Waits up to {@code timeout} for a server that was told to stop to finish: {@code pg_ctl stop} can return while
     * the postmaster is still shutting down, and it removes its pid file last. A postmaster that is no longer running
     * (it crashed, or was killed) never removes it, so that ends the wait too; {@link #clear} removes the file.
     */
    static void awaitShutdown(Path dataDirectory, Duration timeout) {
        Path pidFile = dataDirectory.resolve(PID_FILE);
        await(() -> !Files.exists(pidFile) || !running(readLines(pidFile)), timeout);
    }

    /** Whether the PID on the first of {@code postmaster.pid}'s lines is a running process. */
    static boolean running(List<String> pidFileLines) {
        return !pidFileLines.isEmpty() && parseLong(pidFileLines.getFirst()).flatMap(ProcessHandle::of)
                .map(StalePostmaster::isRunning).orElse(false);
    }

    private static void stop(ProcessHandle postmaster, Duration timeout) {
        postmaster.destroy();
        if (!await(() -> !isRunning(postmaster), timeout)) {
            LOG.warn("PostgreSQL (PID {}) did not stop within {}; killing it, the next start will replay its WAL",
                    postmaster.pid(), SettingValues.format(timeout));
            postmaster.destroyForcibly();
            if (!await(() -> !isRunning(postmaster), timeout)) {
                throw new DatabaseStartException("The left-over PostgreSQL (PID " + postmaster.pid() + ") is still "
                        + "running after SIGKILL; stop it and start again.");
            }
        }
    }

    private static void awaitDetached(long segmentId, Duration timeout) {
        if (!await(() -> attachedProcesses(segmentId) == 0, timeout)) {
            throw new DatabaseStartException("Processes of the previous PostgreSQL are still attached to its shared "
                    + "memory (segment " + segmentId + ", see ipcs -m) after " + SettingValues.format(timeout)
                    + "; stop them and start again.");
        }
    }

    /** How many processes are attached to a System V shared memory segment; 0 if it is gone or we cannot tell. */
    private static long attachedProcesses(long segmentId) {
        for (String row : readLines(SYSV_SHARED_MEMORY)) {
            String[] columns = row.strip().split("\\s+");
            // columns: key shmid perms size cpid lpid nattch ...
            if (columns.length > 6 && columns[1].equals(Long.toString(segmentId))) {
                return parseLong(columns[6]).orElse(0L);
            }
        }
        return 0;
    }

    /** Alive and not a zombie: Java's {@link ProcessHandle#isAlive()} counts unreaped zombies as alive. */
    static boolean isRunning(ProcessHandle process) {
        if (!process.isAlive()) {
            return false;
        }
        List<String> stat = readLines(Path.of("/proc", Long.toString(process.pid()), "stat"));
        if (stat.isEmpty()) {
            return true;
        }
        // "pid (command) state ...": the command may contain spaces and parentheses, the state follows the last ')'.
        String line = stat.getFirst();
        int afterCommand = line.lastIndexOf(')');
        return afterCommand < 0 || !line.substring(afterCommand + 1).strip().startsWith("Z");
    }

    /** Whether the process runs a {@code postgres} binary with this data directory on its command line. */
    private static boolean isPostmasterOf(ProcessHandle process, Path dataDirectory) {
        ProcessHandle.Info info = process.info();
        boolean postgres = info.command().map(command -> command.endsWith("/postgres")).orElse(false);
        boolean ourDirectory = info.arguments()
                .map(arguments -> Arrays.asList(arguments).contains(dataDirectory.toString()))
                .orElse(true);
        return postgres && ourDirectory;
    }

    static boolean await(BooleanSupplier condition, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            try {
                Thread.sleep(POLL_MILLIS);
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
                return condition.getAsBoolean();
            }
        }
        return true;
    }

    static List<String> readLines(Path file) {
        try {
            return Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException absent) {
            return List.of();
        } catch (IOException unreadable) {
            LOG.debug("Cannot read {}: {}", file, unreadable.toString());
            return List.of();
        }
    }

    private static void delete(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException failure) {
            throw new DatabaseStartException("Cannot remove the stale " + file + ": " + failure, failure);
        }
    }

    static Optional<Long> parseLong(String text) {
        try {
            return Optional.of(Long.parseLong(text.strip()));
        } catch (NumberFormatException notANumber) {
            return Optional.empty();
        }
    }
}
