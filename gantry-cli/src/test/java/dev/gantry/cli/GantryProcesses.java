package dev.gantry.cli;

import dev.gantry.cli.client.GantryClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Gantry as real processes for end-to-end tests: a server ({@code gantry server}) on a test database and a fixed
 * port, so it can be killed with SIGKILL and started again where agents find it, and agents
 * ({@code gantry agent}), each a process of its own. Every process logs to {@code home/logs}; {@link #close()}
 * kills whatever still runs, with its descendants.
 */
final class GantryProcesses implements AutoCloseable {
    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

    private final Path home;
    private final Map<String, String> environment;
    private final int port;
    private final List<Process> processes = new ArrayList<>();
    private Process server;
    private int serverStarts;
    private int agentStarts;

    /**
     * @param databaseUrl the test database ({@code GANTRY_DATABASE_URL}); null: the embedded PostgreSQL under
     *                    {@code home}, which the server process runs
     * @param settings    further environment for the server, such as a short agent lease timeout
     */
    GantryProcesses(Path home, String databaseUrl, Map<String, String> settings) {
        this.home = home;
        this.port = freePort();
        this.environment = new HashMap<>(settings);
        environment.put("GANTRY_HOME", home.toString());
        environment.put("GANTRY_ALLOW_LOCAL_REPOSITORIES", "true"); // the tests' repositories are directories
        if (databaseUrl != null) {
            environment.put("GANTRY_DATABASE_URL", databaseUrl);
        }
    }

    URI url() {
        return URI.create("http://127.0.0.1:" + port);
    }

    /** Starts the server and waits until it answers HTTP. */
    void startServer() {
        startServer(List.of());
    }

    /** Starts the server with further {@code options} (such as {@code --fleet FILE}) and waits until it answers HTTP. */
    void startServer(List<String> options) {
        List<String> arguments = new ArrayList<>(List.of("server", "--port", Integer.toString(port)));
        arguments.addAll(options);
        server = start("server-" + ++serverStarts, arguments);
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!server.isAlive()) {
                throw new IllegalStateException("the server exited with " + server.exitValue() + "; see "
                        + log("server-" + serverStarts));
            }
            try {
                if (Files.exists(adminTokenFile()) && admin().get("/api/v2/project").ok()) {
                    return;
                }
            } catch (RuntimeException notYet) {
                // not listening yet
            }
            sleep(200);
        }
        throw new IllegalStateException("the server did not answer within " + START_TIMEOUT);
    }

    /** Stops the server with SIGTERM, as Ctrl-C or a service manager does, and returns its exit code. */
    int stopServer() throws InterruptedException {
        server.destroy();
        if (!server.waitFor(START_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
            throw new IllegalStateException("the server did not stop within " + START_TIMEOUT + " of SIGTERM");
        }
        return server.exitValue();
    }

    /**
     * Kills the server with SIGKILL, as {@code kill -9} does: no shutdown hook runs, nothing is flushed or closed, and
     * its child processes (local agents) are not touched.
     */
    void killServer() {
        server.destroyForcibly();
        try {
            server.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The server process started last. */
    ProcessHandle server() {
        return server.toHandle();
    }

    /**
     * Starts agent {@code name} offering {@code cpu} CPUs, 2 GB of memory (at least 8 in all) and 10 GB of disk per
     * CPU, running jobs on the host shell: these tests are about the orchestration, and their jobs leave traces in
     * host files (the container executor has tests of its own).
     */
    Process startAgent(String name, int cpu) {
        return startAgent(name, cpu, "shell");
    }

    /** Starts agent {@code name} offering as {@link #startAgent(String, int)} does, running jobs on {@code executor}. */
    Process startAgent(String name, int cpu, String executor) {
        return startAgent(name, cpu, executor, url());
    }

    /** As {@link #startAgent(String, int, String)}, calling {@code server} (a load balancer, say) instead. */
    Process startAgent(String name, int cpu, String executor, URI server) {
        return start("agent-" + name + "-" + ++agentStarts, List.of("agent", "--server", server.toString(),
                "--token-file", home.resolve("agent-token").toString(), "--cpu", Integer.toString(cpu),
                "--memory", Integer.toString(Math.max(8, 2 * cpu)), "--disk", Integer.toString(10 * cpu),
                "--name", name, "--work-dir", home.resolve("work-" + name).toString(), "--executor", executor));
    }

    /**
     * Kills {@code process} with SIGKILL, then the descendants it had (a job's steps, which a real crash would
     * orphan), and waits for it. The process dies first, so it cannot see its children die and report that.
     */
    void kill(Process process) {
        List<ProcessHandle> descendants = process.descendants().toList();
        process.destroyForcibly();
        descendants.forEach(ProcessHandle::destroyForcibly);
        try {
            process.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A client with the admin token. */
    GantryClient admin() {
        try {
            return new GantryClient(url(), Files.readString(adminTokenFile()).strip());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Where the server keeps its admin token, for requests the client cannot make (custom headers). */
    Path adminTokenFile() {
        return home.resolve("admin-token");
    }

    Path log(String name) {
        return home.resolve("logs").resolve(name + ".log");
    }

    /** The command line that runs {@code gantry ARGUMENTS} from this test's classes, on this test's JVM. */
    static List<String> command(List<String> arguments) {
        List<String> command = new ArrayList<>(List.of(
                ProcessHandle.current().info().command().orElse("java"),
                "-cp", System.getProperty("java.class.path"), Main.class.getName()));
        command.addAll(arguments);
        return command;
    }

    private Process start(String name, List<String> arguments) {
        List<String> command = command(arguments);
        try {
            Files.createDirectories(home.resolve("logs"));
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log(name).toFile()));
            builder.environment().remove("GANTRY_DATABASE_URL"); // this test's choice, not the caller's shell's
            builder.environment().putAll(environment);
            Process process = builder.start();
            processes.add(process);
            return process;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name, e);
        }
    }

    static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    @Override
    public void close() {
        processes.forEach(this::kill);
    }
}
