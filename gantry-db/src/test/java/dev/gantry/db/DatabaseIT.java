package dev.gantry.db;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.gantry.db.EmbeddedDatabase.Durability;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DatabaseIT {
    @TempDir
    Path home;

    @Test
    void the_embedded_database_lives_under_gantry_home_and_keeps_its_rows_across_restarts() throws SQLException {
        DatabaseSettings settings = DatabaseSettings.builder().home(home).poolSize(2).build();
        try (Database database = Database.start(settings)) {
            assertThat(database.isEmbedded()).isTrue();
            assertThat(database.url().database()).isEqualTo("gantry");
            assertThat(database.jdbcUrl()).as("through the server's Unix socket")
                    .contains("socketFactory=dev.gantry.db.UnixSocketFactory&socketFactoryArg=" + home
                            + "/postgres-socket/.s.PGSQL.5432");
            execute(database.getDataSource(), "CREATE TABLE pipelines (id int)", "INSERT INTO pipelines VALUES (7)");
        }
        assertThat(home.resolve("postgres/PG_VERSION")).exists();

        try (Database database = Database.start(settings)) {
            assertThat(query(database.getDataSource(), "SELECT id::text FROM pipelines")).containsExactly("7");
        }
    }

    @Test
    void start_or_attach_uses_the_embedded_server_another_owner_runs_and_leaves_it_running() throws SQLException {
        DatabaseSettings settings = DatabaseSettings.builder().home(home).poolSize(2).build();
        try (Database owner = Database.start(settings)) {
            execute(owner.getDataSource(), "CREATE TABLE pipelines (id int)", "INSERT INTO pipelines VALUES (7)");
            try (Database attached = Database.startOrAttach(settings)) {
                assertThat(attached.isEmbedded()).isFalse();
                assertThat(attached.jdbcUrl()).isEqualTo(owner.jdbcUrl());
                assertThat(query(attached.getDataSource(), "SELECT id::text FROM pipelines")).containsExactly("7");
            }
            assertThat(query(owner.getDataSource(), "SELECT 'still up'")).containsExactly("still up");
        }
        try (Database alone = Database.startOrAttach(settings)) {
            assertThat(alone.isEmbedded()).as("with no owner it starts the server itself").isTrue();
        }
    }

    @Test
    void the_owner_stops_the_server_only_once_an_attached_process_has_disconnected() throws Exception {
        DatabaseSettings settings = DatabaseSettings.builder().home(home).poolSize(2).build();
        Database owner = Database.start(settings);
        CompletableFuture<Void> ownerClosed;
        try (Database attached = Database.startOrAttach(settings)) {
            ownerClosed = CompletableFuture.runAsync(owner::close);
            Thread.sleep(1_000);
            assertThat(ownerClosed).as("the owner waits for the attached pool").isNotDone();
            assertThat(query(attached.getDataSource(), "SELECT 'still up'")).containsExactly("still up");
        }
        long closing = System.nanoTime();
        ownerClosed.get(Database.OTHERS_CLOSE_WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(Duration.ofNanos(System.nanoTime() - closing)).isLessThan(Database.OTHERS_CLOSE_WAIT.dividedBy(2));
        assertThat(home.resolve("postgres/postmaster.pid")).doesNotExist();
    }

    @Test
    void the_pool_hands_out_up_to_pool_size_connections_and_then_times_out() throws SQLException {
        DatabaseSettings settings = DatabaseSettings.builder().home(home).poolSize(2)
                .connectTimeout(Duration.ofMillis(300)).build();
        try (Database database = Database.start(settings);
             Connection first = database.getDataSource().getConnection();
             Connection second = database.getDataSource().getConnection()) {
            assertThat(query(first, "SELECT 'first'")).containsExactly("first");
            assertThat(query(second, "SELECT 'second'")).containsExactly("second");
            assertThatThrownBy(() -> database.getDataSource().getConnection())
                    .isInstanceOf(SQLException.class)
                    .hasMessageContaining("total=2, active=2");
        }
    }

    @Test
    void a_postgres_url_to_a_running_server_is_used_without_starting_another() throws SQLException {
        try (EmbeddedDatabase server = EmbeddedDatabase.start(home.resolve("external/postgres"), 0,
                Duration.ofSeconds(30), Durability.THROWAWAY)) {
            String password = server.tcpUrl("postgres").password().orElseThrow();
            String url = "postgres://postgres:" + password + "@127.0.0.1:" + server.port()
                    + "/postgres?ApplicationName=via-url";
            DatabaseSettings settings = DatabaseSettings.builder().home(home.resolve("gantry")).url(url).build();
            ListAppender<ILoggingEvent> log = new ListAppender<>();
            log.start();
            Logger databaseLogger = (Logger) LoggerFactory.getLogger(Database.class);
            databaseLogger.addAppender(log);

            try (Database database = Database.start(settings)) {
                assertThat(database.isEmbedded()).isFalse();
                assertThat(database.jdbcUrl()).isEqualTo("jdbc:postgresql://127.0.0.1:" + server.port()
                        + "/postgres?ApplicationName=via-url");
                assertThat(query(database.getDataSource(),
                        "SELECT current_setting('port') || ' ' || current_setting('application_name')"))
                        .containsExactly(server.port() + " via-url");
            } finally {
                databaseLogger.detachAppender(log);
            }
            assertThat(home.resolve("gantry/postgres")).doesNotExist();
            assertThat(log.list).hasSize(1);
            assertThat(log.list.getFirst().getFormattedMessage())
                    .contains("database=jdbc:postgresql://127.0.0.1:" + server.port())
                    .contains("password ****")
                    .doesNotContain(password);
        }
    }

    @Test
    void create_database_if_missing_creates_it_once_and_says_how_to_reach_it() throws SQLException {
        try (Database database = Database.start(DatabaseSettings.builder().home(home).build())) {
            DatabaseUrl shard = database.createDatabaseIfMissing("gantry_shard_2");
            DatabaseUrl again = database.createDatabaseIfMissing("gantry_shard_2");

            assertThat(again).isEqualTo(shard);
            assertThat(shard.database()).isEqualTo("gantry_shard_2");
            try (Connection connection = DriverManager.getConnection(shard.jdbcUrl(), shard.user().orElseThrow(),
                    shard.password().orElseThrow())) {
                assertThat(query(connection, "SELECT current_database()")).containsExactly("gantry_shard_2");
            }
            assertThatThrownBy(() -> database.createDatabaseIfMissing("Robert'); DROP TABLE students;--"))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void an_unreachable_server_fails_the_start_naming_it_and_the_timeout_without_the_password() throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }
        DatabaseSettings settings = DatabaseSettings.builder().home(home)
                .url("postgres://gantry:s3cret@127.0.0.1:" + closedPort + "/gantry")
                .connectTimeout(Duration.ofSeconds(1)).build();

        assertThatThrownBy(() -> Database.start(settings))
                .isInstanceOf(DatabaseStartException.class)
                .hasMessageStartingWith("Cannot connect to jdbc:postgresql://127.0.0.1:" + closedPort + "/gantry")
                .hasMessageContaining("within 1s")
                .message().doesNotContain("s3cret");
    }

    @Test
    void a_server_that_does_not_answer_in_time_is_tried_again_and_one_that_refuses_fails_the_start() throws Exception {
        // A listener that takes the first connection and never answers, then goes away: the first attempt times out,
        // the second is refused.
        ServerSocket silent = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().start(() -> {
            try (Socket held = silent.accept()) {
                silent.close();
                Thread.sleep(5_000);
            } catch (IOException | InterruptedException ignored) {
                // the test is over
            }
        });
        DatabaseSettings settings = DatabaseSettings.builder().home(home)
                .url("postgres://gantry:s3cret@127.0.0.1:" + silent.getLocalPort() + "/gantry")
                .connectTimeout(Duration.ofSeconds(1)).build();

        assertThatThrownBy(() -> Database.start(settings))
                .isInstanceOf(DatabaseStartException.class)
                .hasMessageContaining("refused");
    }

    @Test
    void a_killed_embedded_server_is_started_again_with_its_data_and_the_pool_hands_out_working_connections()
            throws Exception {
        DatabaseSettings settings = DatabaseSettings.builder().home(home).poolSize(4).build();
        Path data = home.resolve("postgres");
        try (Database database = Database.start(settings)) {
            DataSource pool = database.getDataSource();
            execute(pool, "CREATE TABLE pipelines (id int)", "INSERT INTO pipelines VALUES (7)");
            fillPool(pool, 4); // idle connections the kill breaks, which the pool must not lend afterwards
            ProcessHandle killed = EmbeddedDatabaseIT.postmaster(data);

            OffsetDateTime killedAt = OffsetDateTime.now();
            killed.destroyForcibly();
            long killing = System.nanoTime();
            // A backend of the killed server may still answer for a moment, until it sees its postmaster gone.
            while (!startedAfter(pool, killedAt) && System.nanoTime() - killing < Duration.ofSeconds(30).toNanos()) {
                Thread.sleep(50);
            }
            Duration recovery = Duration.ofNanos(System.nanoTime() - killing);

            assertThat(recovery).isLessThan(Duration.ofSeconds(10));
            assertThat(query(pool, "SELECT id::text FROM pipelines")).as("committed before the kill")
                    .containsExactly("7");
            ProcessHandle restarted = EmbeddedDatabaseIT.postmaster(data);
            assertThat(restarted.pid()).isNotEqualTo(killed.pid());
            assertThat(postmastersOf(data)).as("one server on the directory, never two").containsExactly(restarted);
            for (int round = 0; round < 8; round++) { // every pooled connection works, not just the first
                assertThat(query(pool, "SELECT 'up'")).containsExactly("up");
            }
            fillPool(pool, 4);
            System.out.println("The embedded server answered again " + recovery.toMillis() + " ms after the kill");
        }
        Thread.sleep(EmbeddedDatabase.SUPERVISION_CHECK_EVERY.multipliedBy(3).toMillis());
        assertThat(data.resolve("postmaster.pid")).as("closed: stopped, and not started again").doesNotExist();
        assertThat(postmastersOf(data)).isEmpty();
    }

    @Test
    void close_stops_the_embedded_server_and_releases_gantry_home() {
        DatabaseSettings settings = DatabaseSettings.builder().home(home).build();
        Database database = Database.start(settings);
        database.close();
        database.close();

        assertThat(home.resolve("postgres/postmaster.pid")).doesNotExist();
        assertThatThrownBy(() -> database.getDataSource().getConnection()).isInstanceOf(SQLException.class);
        Database.start(settings).close();
    }

    /** Borrows {@code size} connections at once, each used, and returns them: the pool then holds them idle. */
    private static void fillPool(DataSource dataSource, int size) throws SQLException {
        List<Connection> borrowed = new ArrayList<>();
        try {
            for (int i = 0; i < size; i++) {
                borrowed.add(dataSource.getConnection());
                assertThat(query(borrowed.getLast(), "SELECT 'borrowed'")).containsExactly("borrowed");
            }
        } finally {
            for (Connection connection : borrowed) {
                connection.close();
            }
        }
    }

    /** Whether a pooled connection reaches a server started after {@code instant}; false while none does. */
    private static boolean startedAfter(DataSource dataSource, OffsetDateTime instant) {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement started = connection.prepareStatement("SELECT pg_postmaster_start_time() > ?")) {
            started.setObject(1, instant);
            try (ResultSet rows = started.executeQuery()) {
                return rows.next() && rows.getBoolean(1);
            }
        } catch (SQLException stillDown) {
            return false;
        }
    }

    /** The live postmasters whose command line names {@code data} (backends rewrite theirs). */
    private static List<ProcessHandle> postmastersOf(Path data) {
        return ProcessHandle.allProcesses().filter(StalePostmaster::isRunning)
                .filter(p -> p.info().command().map(c -> c.endsWith("/postgres")).orElse(false))
                .filter(p -> p.info().arguments().map(a -> List.of(a).contains(data.toString())).orElse(false))
                .toList();
    }

    private static void execute(DataSource dataSource, String... statements) throws SQLException {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            for (String sql : statements) {
                statement.execute(sql);
            }
        }
    }

    private static List<String> query(DataSource dataSource, String sql) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            return query(connection, sql);
        }
    }

    /** Leaves the connection open. */
    private static List<String> query(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement(); ResultSet rows = statement.executeQuery(sql)) {
            List<String> values = new ArrayList<>();
            while (rows.next()) {
                values.add(rows.getString(1));
            }
            return values;
        }
    }
}
