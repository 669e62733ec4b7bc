package dev.gantry.bench.e2e;

import dev.gantry.bench.GantryProcesses;
import dev.gantry.cli.client.GantryClient;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Gantry as a user runs it, for {@code bench e2e}: {@code gantry server} as a process on its embedded PostgreSQL in a
 * fresh {@code GANTRY_HOME}, agents as processes of their own, and a git repository whose config is one job with
 * one no-op step, registered as project {@code gantry/local/noop}. Everything it started is killed on
 * {@link #close()}, and its home removed.
 */
final class GantryRig implements AutoCloseable {
    static final String SLUG = "gantry/local/noop";
    /** The workload: one job, one step running {@code true}, no checkout; as Buildbot's builder. */
    static final String CONFIG = """
            version: 2.1
            jobs:
              noop:
                docker:
                  - image: cimg/base:2024.01
                resource_class: small
                steps:
                  - run:
                      name: No-op
                      command: "true"
            workflows:
              noop:
                jobs:
                  - noop
            """;

    private final Path home;
    private final int port = GantryProcesses.freePort();
    private final int databasePort = GantryProcesses.freePort();
    private final List<Process> processes = new ArrayList<>();
    private GantryClient client;

    private GantryRig(Path home) {
        this.home = home;
    }

    /**
     * Starts the server and {@code agents} agents of one small job each running jobs on {@code executor}
     * ({@code shell} or {@code docker}), and registers the project.
     */
    static GantryRig start(int agents, String executor) throws IOException, InterruptedException {
        return start(agents, executor, List.of());
    }

    /** As {@link #start(int, String)}, the server given {@code serverFlags} too (e.g. --allow-private-networks). */
    static GantryRig start(int agents, String executor, List<String> serverFlags)
            throws IOException, InterruptedException {
        GantryRig rig = new GantryRig(Files.createTempDirectory("gantry-bench-e2e"));
        try {
            rig.startServer(serverFlags);
            for (int i = 1; i <= agents; i++) {
                rig.startProcess("agent-" + i, List.of("agent", "--server", rig.url().toString(), "--token-file",
                        rig.home.resolve("agent-token").toString(), "--cpu", "1", "--memory", "2", "--name",
                        "bench-" + i, "--work-dir", rig.home.resolve("work-" + i).toString(), "--executor", executor));
            }
            rig.registerProject();
            return rig;
        } catch (IOException | InterruptedException | RuntimeException e) {
            rig.close();
            throw e;
        }
    }

    URI url() {
        return URI.create("http://127.0.0.1:" + port);
    }

    GantryClient client() {
        return client;
    }

    /** The admin token the server wrote into its home, as a newcomer would sign in with it. */
    String adminToken() throws IOException {
        return Files.readString(home.resolve("admin-token")).strip();
    }

    /** Workflows of the project that succeeded so far, counted in the database (cheaper than asking the API). */
    long succeededWorkflows() throws SQLException, IOException {
        return workflows("status = 'success'");
    }

    /** Workflows of the project that ended, succeeded or failed, so far. */
    long finishedWorkflows() throws SQLException, IOException {
        return workflows("status IN ('success', 'failed')");
    }

    private long workflows(String condition) throws SQLException, IOException {
        return numbers("SELECT count(*) FROM gantry.workflow WHERE " + condition).getFirst().longValue();
    }

    /** The first column of {@code sql}'s rows, as numbers: a query of the bench's own, read-only. */
    List<Double> numbers(String sql) throws SQLException, IOException {
        // The embedded database asks for the password Gantry keeps beside it, also on its TCP port.
        String password = Files.readString(home.resolve("postgres.password")).strip();
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + databasePort + "/gantry",
                "postgres", password); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            List<Double> values = new ArrayList<>();
            while (rs.next()) {
                values.add(rs.getDouble(1));
            }
            return values;
        }
    }

    /** Adds branch {@code name} to the project's repository, holding {@code config} instead of {@link #CONFIG}. */
    void branch(String name, String config) throws IOException {
        Path repository = home.resolve("noop");
        GantryProcesses.git(repository, "checkout", "-q", "-b", name);
        Files.writeString(repository.resolve(".circleci/config.yml"), config);
        GantryProcesses.git(repository, "commit", "-q", "-am", "config of " + name);
        GantryProcesses.git(repository, "checkout", "-q", "main");
    }

    private void startServer(List<String> flags) throws IOException, InterruptedException {
        List<String> arguments = new ArrayList<>(List.of("server", "--port", Integer.toString(port),
                "--allow-local-repositories"));
        arguments.addAll(flags);
        Process server = startProcess("server", arguments);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline) {
            if (!server.isAlive()) {
                throw new IllegalStateException("the Gantry server exited; see " + log("server"));
            }
            Path token = home.resolve("admin-token");
            if (Files.exists(token)) {
                GantryClient candidate = new GantryClient(url(), Files.readString(token).strip());
                try {
                    if (candidate.get("/api/v2/project").ok()) {
                        client = candidate;
                        return;
                    }
                } catch (RuntimeException notYet) {
                    // not listening yet
                }
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException("the Gantry server did not answer within 120 s; see " + log("server"));
    }

    private void registerProject() throws IOException {
        Path repository = home.resolve("noop");
        GantryProcesses.repository(repository, CONFIG);
        GantryClient.Answer created = client.post("/api/v2/project", Map.of("name", "noop", "repo_url",
                repository.toString()));
        if (!created.ok()) {
            throw new IllegalStateException("registering the project: " + created.message());
        }
    }

    private Process startProcess(String name, List<String> arguments) throws IOException {
        // The benchmarks drive the server with one admin token, as fast as it answers: that is the load under
        // test, not a runaway script, so the per-token rate limit (50/s by default) is lifted.
        Process process = GantryProcesses.start(arguments, Map.of("GANTRY_HOME", home.toString(),
                "GANTRY_EMBEDDED_PG_PORT", Integer.toString(databasePort), "GANTRY_RATE_LIMIT_API", "1000000",
                "GANTRY_RATE_LIMIT_API_BURST", "1000000"), log(name));
        processes.add(process);
        return process;
    }

    private Path log(String name) {
        return home.resolve("logs").resolve(name + ".log");
    }

    /** Stops the agents, then the server (SIGTERM: it shuts its embedded PostgreSQL down), and removes the home. */
    @Override
    public void close() {
        for (int i = processes.size() - 1; i >= 0; i--) {
            GantryProcesses.stop(processes.get(i), 30);
        }
        try (var files = Files.walk(home)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a leftover temp directory is no reason to fail the benchmark
        }
    }
}
