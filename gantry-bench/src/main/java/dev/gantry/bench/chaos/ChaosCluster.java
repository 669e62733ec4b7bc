package dev.gantry.bench.chaos;

import dev.gantry.bench.GantryProcesses;
import dev.gantry.cli.client.GantryClient;
import dev.gantry.db.Database;
import dev.gantry.db.DatabaseSettings;
import dev.gantry.server.GantryServer;
import dev.gantry.server.auth.TokenKind;
import dev.gantry.testkit.TcpBalancer;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * What the chaos suite runs and breaks, as an operator would deploy it on one host:
 *
 * <ul>
 *   <li>one PostgreSQL, the embedded one of gantry-db, run and supervised by this JVM (a postmaster killed with -9 is
 *       started again by {@code Database}'s supervisor, as {@code gantry server} does for its own);</li>
 *   <li>{@code servers} {@code gantry server} processes on it ({@code GANTRY_DATABASE_URL}), each with its own
 *       {@code GANTRY_HOME} holding the first one's token and master key files, their blobs in one S3 bucket
 *       (docs/storage.md);</li>
 *   <li>a {@link TcpBalancer} in front of them, checking {@code /healthz};</li>
 *   <li>{@code agents} {@code gantry agent} processes (shell executor) that reach the servers through the
 *       balancer.</li>
 * </ul>
 *
 * <p>Servers keep their ports across restarts, agents their names and work directories (so a restarted agent sends
 * the results its predecessor left on disk). Each process logs to {@code dir/logs/NAME-N.log}. Not thread-safe:
 * one fault driver at a time.
 */
final class ChaosCluster implements AutoCloseable {
    static final String HEALTH_PATH = "/healthz";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);
    private static final int AGENT_CPUS = 4;
    /** How often a server that exits while starting is started again, as a service manager would. */
    private static final int START_ATTEMPTS = 5;
    /**
     * The processes' logging: Gantry's own INFO lines with the date, so they line up with the fault log; the libraries
     * only when something is wrong. (The bench jar's own logback.xml keeps everything below WARN quiet.)
     */
    private static final String PROCESS_LOGGING = """
            <configuration>
              <statusListener class="ch.qos.logback.core.status.NopStatusListener"/>
              <appender name="STDERR" class="ch.qos.logback.core.ConsoleAppender">
                <target>System.err</target>
                <encoder>
                  <pattern>%d{yyyy-MM-dd'T'HH:mm:ss.SSS'Z',UTC} %-5level [%thread] %logger{0} - %msg%n</pattern>
                </encoder>
              </appender>
              <logger name="dev.gantry" level="INFO"/>
              <root level="WARN">
                <appender-ref ref="STDERR"/>
              </root>
            </configuration>
            """;

    private final Path dir;
    private final Database database;
    private final ChaosBucket bucket;
    private final List<Slot> servers = new ArrayList<>();
    private final List<Slot> agents = new ArrayList<>();
    private final List<String> jvmOptions;
    private TcpBalancer balancer;
    private String adminToken;
    private int startFailures;

    /** A process the cluster restarts in place: its name, port (servers), environment and the current process. */
    private static final class Slot {
        final String name;
        final int port;
        final Path home;
        int starts;
        Process process;

        Slot(String name, int port, Path home) {
            this.name = name;
            this.port = port;
            this.home = home;
        }
    }

    private ChaosCluster(Path dir, Database database, ChaosBucket bucket) throws IOException {
        this.dir = dir;
        this.database = database;
        this.bucket = bucket;
        Path logging = Files.writeString(dir.resolve("logback-processes.xml"), PROCESS_LOGGING);
        this.jvmOptions = List.of("-Xmx512m", "-Dlogback.configurationFile=" + logging);
    }

    static ChaosCluster start(Path dir, int servers, int agents) throws Exception {
        Database database = Database.start(DatabaseSettings.builder().home(dir.resolve("database"))
                .embeddedPort(GantryProcesses.freePort()).poolSize(4).build());
        ChaosBucket bucket;
        try {
            bucket = ChaosBucket.start();
        } catch (Exception | Error e) {
            database.close();
            throw e;
        }
        ChaosCluster cluster;
        try {
            cluster = new ChaosCluster(dir, database, bucket);
        } catch (IOException e) {
            bucket.close();
            database.close();
            throw e;
        }
        try {
            cluster.startAll(servers, agents);
            return cluster;
        } catch (Exception | Error e) {
            cluster.close();
            throw e;
        }
    }

    private void startAll(int serverCount, int agentCount) throws IOException, InterruptedException {
        for (int i = 1; i <= serverCount; i++) {
            Path home = Files.createDirectories(dir.resolve("server-" + i));
            if (i > 1) {
                // Every server of one database needs the first one's tokens and key (docs/storage.md).
                for (String file : List.of(TokenKind.ADMIN.fileName(), TokenKind.AGENT.fileName(),
                        GantryServer.MASTER_KEY_FILE)) {
                    Files.copy(servers.getFirst().home.resolve(file), home.resolve(file));
                }
            }
            Slot server = new Slot("server-" + i, GantryProcesses.freePort(), home);
            servers.add(server);
            startServer(i - 1);
        }
        balancer = TcpBalancer.start(servers.stream().map(s -> serverUrl(s)).toList(), HEALTH_PATH);
        for (int i = 1; i <= agentCount; i++) {
            agents.add(new Slot("agent-" + i, 0, Files.createDirectories(dir.resolve("agent-" + i))));
            startAgent(i - 1);
        }
        awaitAgents(agentCount);
    }

    /** Waits until {@code count} agents have registered, so that the run starts with its whole fleet. */
    private void awaitAgents(int count) throws InterruptedException {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            try (var c = database.getDataSource().getConnection(); var s = c.createStatement();
                 var rows = s.executeQuery("SELECT count(DISTINCT name) FROM gantry.agent")) {
                if (rows.next() && rows.getInt(1) >= count) {
                    return;
                }
            } catch (java.sql.SQLException notYet) {
                // the table may not be there yet on a fresh database; try again
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException(count + " agents did not register within " + START_TIMEOUT + "; see "
                + dir.resolve("logs"));
    }

    /** The balancer's URL: where clients and agents go. */
    URI url() {
        return balancer.url();
    }

    GantryClient admin() {
        return new GantryClient(url(), adminToken);
    }

    String adminToken() {
        return adminToken;
    }

    /** The driver's own small pool on the database, for the checks. */
    DataSource dataSource() {
        return database.getDataSource();
    }

    int servers() {
        return servers.size();
    }

    int agents() {
        return agents.size();
    }

    List<URI> healthyServers() {
        return balancer.healthy();
    }

    Path dir() {
        return dir;
    }

    /**
     * Starts server {@code i} (again) on its port and waits until it answers the API directly. A server that exits
     * while starting (it gives up when the database does not answer within its connect timeout) is started again up
     * to {@link #START_ATTEMPTS} times, a second apart, as a service manager would; returns how many starts failed.
     */
    int startServer(int i) throws IOException, InterruptedException {
        for (int failed = 0; ; failed++) {
            Path log = startServerOnce(servers.get(i));
            if (log == null) {
                return failed;
            }
            startFailures++;
            if (failed + 1 == START_ATTEMPTS) {
                throw new IllegalStateException(servers.get(i).name + " exited while starting " + START_ATTEMPTS
                        + " times; see " + log);
            }
            Thread.sleep(1_000);
        }
    }

    /** One start: null once the server answers, else the log of the process that exited. */
    private Path startServerOnce(Slot server) throws IOException, InterruptedException {
        Map<String, String> environment = new HashMap<>(bucket.environment("chaos"));
        environment.put("GANTRY_HOME", server.home.toString());
        environment.put("GANTRY_DATABASE_URL", jdbcUrl());
        environment.put("GANTRY_ALLOW_LOCAL_REPOSITORIES", "true"); // the projects are directories on this host
        // Short leases, as the outage tests use: a lost agent is found in seconds, not minutes.
        environment.put("GANTRY_AGENT_HEARTBEAT_INTERVAL", "1s");
        environment.put("GANTRY_AGENT_LEASE_TIMEOUT", "10s");
        // The default connect timeout of 1 s bounds the driver's whole login too; a server restarted on this busy
        // 2-core host (a cold JVM doing SCRAM) took longer than that and exited, 2 to 5 times in a row
        // (docs/reliability.md, "The chaos suite"). 5 s, as an operator of such a host would set.
        environment.put("GANTRY_DATABASE_CONNECT_TIMEOUT", "5s");
        Path log = log(server);
        server.process = GantryProcesses.start(jvmOptions, List.of("server", "--port", Integer.toString(server.port)),
                environment, log);
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        Path tokenFile = server.home.resolve(TokenKind.ADMIN.fileName());
        while (System.nanoTime() < deadline) {
            if (!server.process.isAlive()) {
                return log;
            }
            if (Files.exists(tokenFile)) {
                String token = Files.readString(tokenFile).strip();
                try {
                    if (new GantryClient(serverUrl(server), token).get("/api/v2/project").ok()) {
                        adminToken = token;
                        return null;
                    }
                } catch (RuntimeException notYet) {
                    // not listening yet
                }
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException(server.name + " did not answer within " + START_TIMEOUT + "; see " + log);
    }

    /** Server starts so far that exited before the server answered. */
    int startFailures() {
        return startFailures;
    }

    /** Kills server {@code i} with SIGKILL and waits for it to be gone; returns its pid. */
    long killServer(int i) throws InterruptedException {
        Process process = servers.get(i).process;
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
        return process.pid();
    }

    /** Sends server {@code i} SIGSTOP (true) or SIGCONT (false); returns its pid. */
    long pauseServer(int i, boolean pause) throws IOException, InterruptedException {
        long pid = servers.get(i).process.pid();
        Process kill = new ProcessBuilder("kill", pause ? "-STOP" : "-CONT", Long.toString(pid)).start();
        if (kill.waitFor() != 0) {
            throw new IllegalStateException("kill " + (pause ? "-STOP " : "-CONT ") + pid + " failed");
        }
        return pid;
    }

    /** Starts agent {@code i} (again) under its name and work directory, through the balancer. */
    void startAgent(int i) throws IOException {
        Slot agent = agents.get(i);
        agent.process = GantryProcesses.start(jvmOptions, List.of("agent", "--server", url().toString(),
                "--token-file", servers.getFirst().home.resolve(TokenKind.AGENT.fileName()).toString(),
                "--cpu", Integer.toString(AGENT_CPUS), "--memory", Integer.toString(2 * AGENT_CPUS),
                "--disk", Integer.toString(10 * AGENT_CPUS), "--name", "chaos-" + agent.name,
                "--work-dir", agent.home.toString(), "--executor", "shell"), Map.of(), log(agent));
    }

    /**
     * Kills agent {@code i} with SIGKILL, then the steps it was running, as a machine that dies takes both (a bare
     * {@code kill -9} would leave the steps running on as orphans); returns its pid.
     */
    long killAgent(int i) throws InterruptedException {
        Process process = agents.get(i).process;
        List<ProcessHandle> descendants = process.descendants().toList();
        process.destroyForcibly();
        descendants.forEach(ProcessHandle::destroyForcibly);
        process.waitFor(30, TimeUnit.SECONDS);
        return process.pid();
    }

    /** Kills the PostgreSQL postmaster with SIGKILL (its supervisor starts it again); returns its pid. */
    long killPostmaster() throws IOException {
        Path pidFile = database.settings().embeddedDataDirectory().resolve("postmaster.pid");
        long pid = Long.parseLong(Files.readAllLines(pidFile).getFirst().strip());
        ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        return pid;
    }

    /** Where the database keeps its WAL, for its size. */
    Path walDirectory() {
        return database.settings().embeddedDataDirectory().resolve("pg_wal");
    }

    private String jdbcUrl() {
        String password = database.url().password().orElseThrow();
        return "jdbc:postgresql://127.0.0.1:" + database.settings().embeddedPort() + "/"
                + Database.EMBEDDED_DATABASE_NAME + "?user=postgres&password="
                + URLEncoder.encode(password, StandardCharsets.UTF_8);
    }

    private static URI serverUrl(Slot server) {
        return URI.create("http://127.0.0.1:" + server.port);
    }

    private Path log(Slot slot) {
        return dir.resolve("logs").resolve(slot.name + "-" + ++slot.starts + ".log");
    }

    /** Stops agents, then servers (SIGTERM; a paused one is continued first), the balancer, bucket and database. */
    @Override
    public void close() throws Exception {
        for (Slot agent : agents.reversed()) {
            if (agent.process != null) {
                GantryProcesses.stop(agent.process, 20);
            }
        }
        for (Slot server : servers.reversed()) {
            if (server.process != null && server.process.isAlive()) {
                new ProcessBuilder("kill", "-CONT", Long.toString(server.process.pid())).start().waitFor();
                GantryProcesses.stop(server.process, 30);
            }
        }
        if (balancer != null) {
            balancer.close();
        }
        if (bucket != null) {
            bucket.close();
        }
        database.close();
    }
}
