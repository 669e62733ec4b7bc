package dev.gantry.db;

import dev.gantry.db.EmbeddedDatabase.Durability;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Another user of this machine cannot use the embedded PostgreSQL: the socket's directory keeps them from the socket,
 * and on TCP the server wants the password, which only Gantry's user can read. The attempts run as {@code nobody}
 * (setpriv, from util-linux), a JVM with just {@link ConnectionProbe} and pgjdbc, so the test needs root, as tests run
 * on this project's machines and in CI. Without root, setpriv or that user it fails, rather than pass having checked
 * nothing.
 */
class OtherLocalUserSecurityIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final String OTHER_USER = "nobody";

    @TempDir
    Path home;

    /** Readable by the other user: the probe's class and pgjdbc, outside root's 0700 home and the 0700 temp dirs. */
    private Path probeClasspath;

    @BeforeEach
    void requireAnotherUser() throws Exception {
        assertThat(RootUser.isRoot()).as("this test switches to another user, so it must run as root").isTrue();
        assertThat(run(List.of("id", "-u", OTHER_USER)).exitCode).as("the user " + OTHER_USER + " must exist")
                .isZero();
        assertThat(run(List.of("setpriv", "--version")).exitCode).as("setpriv (util-linux) must be installed")
                .isZero();
        probeClasspath = copyProbeClasspath();
        // A home others may traverse, as ~/.gantry often is: only the socket directory's own mode may keep them out.
        Files.setPosixFilePermissions(home, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    @AfterEach
    void deleteProbeClasspath() throws IOException {
        if (probeClasspath != null) {
            try (Stream<Path> paths = Files.walk(probeClasspath)) {
                for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(path);
                }
            }
        }
    }

    @Test
    void another_user_reaches_neither_the_socket_nor_the_tcp_port_without_the_password() throws Exception {
        try (EmbeddedDatabase server = EmbeddedDatabase.start(home.resolve("postgres"), 0, TIMEOUT,
                Durability.THROWAWAY)) {
            String socket = server.socketFile().toString();
            String tcp = server.tcpUrl("postgres").jdbcUrl();
            String password = server.tcpUrl("postgres").password().orElseThrow();

            assertThat(probeAsOtherUser("socket", socket)).startsWith("REFUSED").contains("Permission denied");
            assertThat(probeAsOtherUser("jdbc", tcp, "postgres"))
                    .as("no password: the server asks for one (SCRAM) instead of trusting")
                    .startsWith("REFUSED").contains("SCRAM").contains("no password was provided");
            assertThat(probeAsOtherUser("jdbc", tcp, "postgres", "guessed"))
                    .startsWith("REFUSED 28P01").contains("password authentication failed");
            assertThat(probeAsOtherUser("jdbc", tcp, OTHER_USER))
                    .startsWith("REFUSED").contains("no password was provided");

            // Controls: the probe does work as that user, and the socket refuses only others.
            assertThat(probeAsOtherUser("jdbc", tcp, "postgres", password)).isEqualTo("CONNECTED as postgres");
            assertThat(probe(List.of(), "socket", socket)).isEqualTo("CONNECTED to " + socket);
        }
    }

    @Test
    void the_password_file_the_socket_and_its_directory_are_the_owners_alone_and_nothing_is_trusted()
            throws IOException {
        try (EmbeddedDatabase server = EmbeddedDatabase.start(home.resolve("postgres"), TIMEOUT,
                Durability.THROWAWAY)) {
            assertThat(mode(server.passwordFile())).isEqualTo("rw-------");
            assertThat(mode(server.socketFile().getParent())).isEqualTo("rwx------");
            assertThat(mode(server.socketFile())).isEqualTo("rwx------");
            assertThat(mode(server.logFile())).isEqualTo("rw-------");
            List<String> rules = Files.readAllLines(server.dataDirectory().resolve("pg_hba.conf")).stream()
                    .map(String::strip).filter(line -> !line.isEmpty() && !line.startsWith("#")).toList();
            assertThat(rules).isNotEmpty().allMatch(rule -> rule.endsWith("scram-sha-256"))
                    .noneMatch(rule -> rule.contains("trust"));
        }
    }

    private String probeAsOtherUser(String... arguments) throws Exception {
        return probe(List.of("setpriv", "--reuid=" + OTHER_USER, "--regid=" + groupOf(OTHER_USER), "--clear-groups",
                "--"), arguments);
    }

    /** Runs {@link ConnectionProbe} in a JVM of its own, behind {@code prefix}; returns its one line. */
    private String probe(List<String> prefix, String... arguments) throws Exception {
        List<String> command = new ArrayList<>(prefix);
        command.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:-UsePerfData", "-cp", probeClasspath + ":" + probeClasspath.resolve("postgresql.jar"),
                ConnectionProbe.class.getName()));
        command.addAll(List.of(arguments));
        Result result = run(command);
        assertThat(result.exitCode).as("the probe ran: " + result.output).isZero();
        List<String> lines = result.output.lines().filter(line -> line.startsWith("CONNECTED")
                || line.startsWith("REFUSED")).toList();
        assertThat(lines).as("the probe's output: " + result.output).hasSize(1);
        return lines.getFirst();
    }

    private static String groupOf(String user) throws Exception {
        Result group = run(List.of("id", "-g", user));
        assertThat(group.exitCode).as(group.output).isZero();
        return group.output.strip();
    }

    /** A fresh directory in /tmp, readable by all, holding the probe's class file and the pgjdbc jar. */
    private static Path copyProbeClasspath() throws IOException, URISyntaxException {
        Path directory = Files.createTempDirectory("gantry-connection-probe-");
        Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwxr-xr-x"));
        String classFile = ConnectionProbe.class.getName().replace('.', '/') + ".class";
        Path testClasses = Path.of(ConnectionProbe.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path copied = directory.resolve(classFile);
        Files.createDirectories(copied.getParent());
        Files.copy(testClasses.resolve(classFile), copied);
        Path driverJar = Path.of(org.postgresql.Driver.class.getProtectionDomain().getCodeSource().getLocation()
                .toURI());
        Files.copy(driverJar, directory.resolve("postgresql.jar"));
        try (Stream<Path> paths = Files.walk(directory)) {
            for (Path path : paths.toList()) {
                Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(
                        Files.isDirectory(path) ? "rwxr-xr-x" : "rw-r--r--"));
            }
        }
        return directory;
    }

    private static String mode(Path path) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(path));
    }

    private record Result(int exitCode, String output) {
    }

    private static Result run(List<String> command) throws Exception {
        Process process;
        try {
            process = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException cannotRun) {
            return new Result(-1, command.getFirst() + " cannot be run: " + cannotRun.getMessage());
        }
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            return new Result(-1, String.join(" ", command) + " did not finish within 60 s: " + output);
        }
        return new Result(process.exitValue(), output);
    }
}
