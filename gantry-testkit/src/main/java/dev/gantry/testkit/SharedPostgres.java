package dev.gantry.testkit;

import dev.gantry.db.DatabaseUrl;
import dev.gantry.db.EmbeddedDatabase;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * The one PostgreSQL server of this JVM, shared by every test class that uses {@link EmbeddedPostgresExtension}.
 * Started on first use in a temporary directory, without fsync (tests do not need crash safety, they need speed).
 * Stopped and deleted by a JVM shutdown hook. A restart keeps the port, the password and the data, so clients can
 * reconnect. Besides its Unix socket it listens on TCP on 127.0.0.1 (child processes and fault tests use that), where
 * it asks for its password as Gantry's own server does: tests do not get a server that trusts anyone.
 *
 * <p>Thread-safe: every method is synchronized on the class.
 */
final class SharedPostgres {
    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(60);

    private static Path directory;
    private static int port;
    private static String password;
    private static EmbeddedDatabase server;

    private SharedPostgres() {
    }

    /** The server's port; starts the server only if it never ran, so that a stopped server stays stopped. */
    static synchronized int port() {
        if (port == 0) {
            start();
        }
        return port;
    }

    /**
     * How to reach {@code database} as the superuser over TCP, without starting a stopped server. The user and
     * password are in the URL too, so that whatever gets the URL alone (a child process's
     * {@code GANTRY_DATABASE_URL}, a test that passes an empty password) logs in: pgjdbc prefers the URL's values.
     */
    static synchronized DatabaseUrl url(String database) {
        int serverPort = port();
        return DatabaseUrl.of("jdbc:postgresql://127.0.0.1:" + serverPort + "/" + database + "?user="
                + EmbeddedDatabase.SUPERUSER + "&password=" + password, EmbeddedDatabase.SUPERUSER, password);
    }

    /** Starts the server unless it runs; on the same port and data as before, if it ran before. */
    static synchronized void start() {
        if (server != null) {
            return;
        }
        if (directory == null) {
            directory = createDirectory();
            Runtime.getRuntime().addShutdownHook(new Thread(SharedPostgres::stopAndDelete, "gantry-testkit-postgres"));
        }
        server = EmbeddedDatabase.start(directory.resolve("data"), port, STARTUP_TIMEOUT,
                EmbeddedDatabase.Durability.THROWAWAY);
        port = server.port();
        password = server.tcpUrl("postgres").password().orElseThrow();
    }

    /** Stops the server (fast shutdown) if it runs; open connections break. */
    static synchronized void stop() {
        if (server != null) {
            server.close();
            server = null;
        }
    }

    /**
     * Sends {@code signal} (STOP or CONT) to the server and all its processes: stopped, it is a hung server whose
     * port still accepts connections (the kernel completes them) but which never answers.
     */
    static synchronized void signal(String signal) {
        if (server == null) {
            throw new IllegalStateException("the test PostgreSQL is not running");
        }
        long postmaster;
        try {
            postmaster = Long.parseLong(Files.readAllLines(directory.resolve("data").resolve("postmaster.pid")).get(0)
                    .strip());
        } catch (IOException failure) {
            throw new UncheckedIOException("Cannot read the test PostgreSQL's pid", failure);
        }
        ProcessHandle root = ProcessHandle.of(postmaster).orElseThrow(() ->
                new IllegalStateException("the test PostgreSQL (pid " + postmaster + ") is gone"));
        // The postmaster first: stopped, it forks no new backend that the list of its children would miss.
        kill(signal, java.util.List.of(root));
        kill(signal, root.descendants().toList());
    }

    private static void kill(String signal, java.util.List<ProcessHandle> processes) {
        if (processes.isEmpty()) {
            return;
        }
        java.util.List<String> command = new java.util.ArrayList<>(java.util.List.of("kill", "-" + signal));
        processes.forEach(p -> command.add(Long.toString(p.pid())));
        try {
            Process kill = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(kill.getInputStream().readAllBytes());
            // A backend may exit between listing and signalling (its client gave up): that is not a failure.
            boolean onlyGone = output.lines().allMatch(line -> line.isBlank() || line.contains("No such process"));
            if (kill.waitFor() != 0 && !onlyGone) {
                throw new IllegalStateException(String.join(" ", command) + " failed: " + output);
            }
        } catch (IOException failure) {
            throw new UncheckedIOException("Cannot run kill", failure);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while signalling the test PostgreSQL", e);
        }
    }

    static synchronized boolean isRunning() {
        return server != null;
    }

    private static synchronized void stopAndDelete() {
        stop();
        try (Stream<Path> paths = Files.walk(directory)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException | UncheckedIOException ignored) {
            // the JVM is exiting; a temporary directory left behind is not worth a stack trace
        }
    }

    private static Path createDirectory() {
        try {
            return Files.createTempDirectory("gantry-testkit-postgres-");
        } catch (IOException failure) {
            throw new UncheckedIOException("Cannot create a directory for the test PostgreSQL", failure);
        }
    }
}
