package dev.gantry.db;

import dev.gantry.db.EmbeddedDatabase.Durability;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Real servers in temporary directories; as root, each start also exercises the user-namespace path. */
class EmbeddedDatabaseIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    @TempDir
    Path home;

    @Test
    void data_written_before_a_stop_is_there_after_the_next_start() throws Exception {
        Path data = home.resolve("postgres");
        try (EmbeddedDatabase first = EmbeddedDatabase.start(data, 0, TIMEOUT, Durability.DURABLE)) {
            execute(first, "CREATE TABLE builds (id int)", "INSERT INTO builds VALUES (42)");
        }
        assertThat(data.resolve("postmaster.pid")).doesNotExist();

        try (EmbeddedDatabase second = EmbeddedDatabase.start(data, 0, TIMEOUT, Durability.DURABLE)) {
            assertThat(queryStrings(second, "SELECT id::text FROM builds")).containsExactly("42");
        }
    }

    @Test
    void a_durable_server_flushes_every_commit_and_a_throwaway_one_does_not() {
        try (EmbeddedDatabase durable = EmbeddedDatabase.start(home.resolve("durable"), 0, TIMEOUT,
                Durability.DURABLE);
             EmbeddedDatabase throwaway = EmbeddedDatabase.start(home.resolve("throwaway"), 0, TIMEOUT,
                     Durability.THROWAWAY)) {
            String settings = "SELECT current_setting('fsync') || ' ' || current_setting('synchronous_commit')";
            assertThat(queryStrings(durable, settings)).containsExactly("on on");
            assertThat(queryStrings(throwaway, settings)).containsExactly("off off");
        }
    }

    @Test
    void two_servers_with_two_homes_run_side_by_side_one_on_a_free_port_one_on_the_port_given() throws IOException {
        int givenPort = freePort();
        try (EmbeddedDatabase left = EmbeddedDatabase.start(home.resolve("left/postgres"), 0, TIMEOUT,
                Durability.THROWAWAY);
             EmbeddedDatabase right = EmbeddedDatabase.start(home.resolve("right/postgres"), givenPort, TIMEOUT,
                     Durability.THROWAWAY)) {
            execute(left, "CREATE TABLE side AS SELECT 'left' AS name");
            execute(right, "CREATE TABLE side AS SELECT 'right' AS name");

            assertThat(left.port()).isPositive().isNotEqualTo(givenPort);
            assertThat(right.port()).isEqualTo(givenPort);
            assertThat(queryStrings(left, "SELECT current_setting('port') || ' ' || name FROM side"))
                    .containsExactly(left.port() + " left");
            assertThat(queryStrings(right, "SELECT current_setting('port') || ' ' || name FROM side"))
                    .containsExactly(givenPort + " right");
        }
    }

    @Test
    void without_a_port_the_server_listens_on_its_unix_socket_only() throws IOException {
        Path data = home.resolve("postgres");
        try (EmbeddedDatabase server = EmbeddedDatabase.start(data, TIMEOUT, Durability.THROWAWAY)) {
            assertThat(server.listensOnTcp()).isFalse();
            assertThat(server.socketFile()).isEqualTo(home.resolve("postgres-socket/.s.PGSQL.5432"));
            assertThat(queryStrings(server, "SELECT current_setting('listen_addresses') || '|' "
                    + "|| current_setting('unix_socket_directories')"))
                    .containsExactly("|\"" + home.resolve("postgres-socket") + "\"");
            assertThatThrownBy(() -> server.tcpUrl("postgres")).isInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    void a_postmaster_killed_with_sigkill_does_not_prevent_the_next_start() throws Exception {
        Path data = home.resolve("postgres");
        EmbeddedDatabase killed = EmbeddedDatabase.start(data, 0, TIMEOUT, Durability.DURABLE);
        execute(killed, "CREATE TABLE builds (id int)", "INSERT INTO builds VALUES (1)");
        ProcessHandle postmaster = postmaster(data);

        postmaster.destroyForcibly();
        long closing = System.nanoTime();
        killed.close();
        assertThat(Duration.ofNanos(System.nanoTime() - closing)).as("close does not wait out its timeout for the "
                + "pid file a dead postmaster never removes").isLessThan(TIMEOUT.dividedBy(2));

        try (EmbeddedDatabase restarted = EmbeddedDatabase.start(data, 0, TIMEOUT, Durability.DURABLE)) {
            assertThat(queryStrings(restarted, "SELECT id::text FROM builds")).containsExactly("1");
        }
    }

    @Test
    void a_server_left_running_by_a_jvm_killed_with_sigkill_is_stopped_and_replaced() throws Exception {
        Path data = home.resolve("postgres");
        Process child = new ProcessBuilder(javaBinary(), "-cp", System.getProperty("java.class.path"),
                ServerThenHang.class.getName(), data.toString()).redirectErrorStream(true).start();
        try {
            awaitReady(child);
            ProcessHandle orphan = postmaster(data);
            child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            assertThat(orphan.isAlive()).as("the killed JVM's server keeps running").isTrue();

            try (EmbeddedDatabase restarted = EmbeddedDatabase.start(data, 0, TIMEOUT, Durability.DURABLE)) {
                assertThat(queryStrings(restarted, "SELECT name FROM survivors"))
                        .containsExactly("written before the kill");
                assertThat(postmaster(data).pid()).isNotEqualTo(orphan.pid());
            }
        } finally {
            child.destroyForcibly();
        }
    }

    @Test
    void a_postmaster_pid_file_naming_another_live_process_does_not_prevent_the_start() throws IOException {
        Path data = home.resolve("postgres");
        EmbeddedDatabase.start(data, 0, TIMEOUT, Durability.THROWAWAY).close();
        // As after a container restart: the PID in the file now belongs to an unrelated process. (Not this JVM's:
        // PostgreSQL ignores its grandparent's PID, and pg_ctl's parent is this JVM.)
        Process unrelated = new ProcessBuilder("sleep", "60").start();
        try {
            Files.writeString(data.resolve("postmaster.pid"), unrelated.pid() + "\n" + data + "\n");

            try (EmbeddedDatabase restarted = EmbeddedDatabase.start(data, 0, TIMEOUT, Durability.THROWAWAY)) {
                assertThat(queryStrings(restarted, "SELECT 'up'")).containsExactly("up");
            }
        } finally {
            unrelated.destroyForcibly();
        }
    }

    @Test
    void a_socket_lock_file_naming_another_live_process_does_not_prevent_the_start() throws IOException {
        Path data = home.resolve("postgres");
        EmbeddedDatabase.start(data, TIMEOUT, Durability.THROWAWAY).close();
        // As a server killed with SIGKILL leaves it, its PID now another process's.
        Process unrelated = new ProcessBuilder("sleep", "60").start();
        try {
            Files.writeString(home.resolve("postgres-socket/.s.PGSQL.5432.lock"), unrelated.pid() + "\n" + data
                    + "\n");

            try (EmbeddedDatabase restarted = EmbeddedDatabase.start(data, TIMEOUT, Durability.THROWAWAY)) {
                assertThat(queryStrings(restarted, "SELECT 'up'")).containsExactly("up");
            }
        } finally {
            unrelated.destroyForcibly();
        }
    }

    @Test
    void a_data_directory_in_use_is_refused_naming_the_directory() {
        Path data = home.resolve("postgres");
        try (EmbeddedDatabase running = EmbeddedDatabase.start(data, 0, TIMEOUT, Durability.THROWAWAY)) {
            assertThat(running.dataDirectory()).isEqualTo(data);
            assertThatThrownBy(() -> EmbeddedDatabase.start(data, 0, TIMEOUT, Durability.THROWAWAY))
                    .isInstanceOf(DatabaseStartException.class)
                    .hasMessageContaining(data + " is in use by another process");
        }
    }

    @Test
    void a_port_in_use_is_refused_naming_the_setting() throws IOException {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            assertThatThrownBy(() -> EmbeddedDatabase.start(home.resolve("postgres"), taken.getLocalPort(), TIMEOUT,
                    Durability.THROWAWAY))
                    .isInstanceOf(DatabaseStartException.class)
                    .hasMessageContaining("Port " + taken.getLocalPort())
                    .hasMessageContaining("GANTRY_EMBEDDED_PG_PORT");
        }
    }

    @Test
    void a_directory_that_is_not_a_cluster_is_refused_rather_than_overwritten() throws IOException {
        Path data = Files.createDirectories(home.resolve("postgres"));
        Files.writeString(data.resolve("notes.txt"), "not a database");

        assertThatThrownBy(() -> EmbeddedDatabase.start(data, 0, TIMEOUT, Durability.THROWAWAY))
                .isInstanceOf(DatabaseStartException.class)
                .hasMessageContaining("neither empty nor a PostgreSQL data directory");
        assertThat(data.resolve("notes.txt")).hasContent("not a database");
    }

    static ProcessHandle postmaster(Path data) throws IOException {
        long pid = Long.parseLong(Files.readAllLines(data.resolve("postmaster.pid")).getFirst().strip());
        return ProcessHandle.of(pid).orElseThrow();
    }

    static void execute(EmbeddedDatabase server, String... statements) {
        try (Connection connection = connect(server); Statement statement = connection.createStatement()) {
            for (String sql : statements) {
                statement.execute(sql);
            }
        } catch (SQLException failure) {
            throw new AssertionError(failure);
        }
    }

    static List<String> queryStrings(EmbeddedDatabase server, String sql) {
        try (Connection connection = connect(server); Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery(sql)) {
            List<String> values = new ArrayList<>();
            while (rows.next()) {
                values.add(rows.getString(1));
            }
            return values;
        } catch (SQLException failure) {
            throw new AssertionError(failure);
        }
    }

    /** Through the server's Unix socket, with its password. */
    static Connection connect(EmbeddedDatabase server) throws SQLException {
        DatabaseUrl url = server.url("postgres");
        return DriverManager.getConnection(url.jdbcUrl(), url.user().orElseThrow(), url.password().orElseThrow());
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private static String javaBinary() {
        return ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString());
    }

    private static void awaitReady(Process child) throws IOException {
        BufferedReader output = new BufferedReader(new InputStreamReader(child.getInputStream(),
                StandardCharsets.UTF_8));
        List<String> seen = new ArrayList<>();
        for (String line = output.readLine(); line != null; line = output.readLine()) {
            if (line.equals("ready")) {
                return;
            }
            seen.add(line);
        }
        throw new AssertionError("the child JVM ended before it was ready:\n" + String.join("\n", seen));
    }
}
