package dev.gantry.testkit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EmbeddedPostgresExtensionIT {
    @RegisterExtension
    static final EmbeddedPostgresExtension postgres = new EmbeddedPostgresExtension();

    @Test
    void every_pooled_connection_uses_the_non_utc_session_time_zone() throws SQLException {
        assertThat(query(postgres.dataSource(), "SHOW TimeZone")).containsExactly("Pacific/Chatham");
        assertThat(query(postgres.dataSource(), "SELECT '2030-01-01 00:00:00+00'::timestamptz::text"))
                .containsExactly("2030-01-01 13:45:00+13:45");
    }

    @Test
    void the_class_has_a_database_of_its_own_and_those_of_earlier_classes_are_gone() throws SQLException {
        assertThat(postgres.databaseName()).matches("test_[0-9a-f]{16}");
        assertThat(query(postgres.dataSource(), "SELECT current_database()"))
                .containsExactly(postgres.databaseName());
        assertThat(query(postgres.dataSource(), "SELECT datname FROM pg_database WHERE datname LIKE 'test\\_%'"))
                .containsExactly(postgres.databaseName());
    }

    @Test
    void the_jdbc_url_reaches_the_same_database() throws SQLException {
        try (Connection connection = DriverManager.getConnection(postgres.jdbcUrl())) {
            assertThat(query(connection, "SELECT current_database()")).containsExactly(postgres.databaseName());
        }
    }

    @Test
    void truncate_empties_tables_and_restarts_their_sequences() throws SQLException {
        execute(postgres.dataSource(), "CREATE TABLE jobs (id bigserial PRIMARY KEY, name text)",
                "CREATE TABLE steps (job_id bigint REFERENCES jobs (id))",
                "INSERT INTO jobs (name) VALUES ('build'), ('test')", "INSERT INTO steps VALUES (1)");

        postgres.truncate("jobs");

        assertThat(query(postgres.dataSource(), "SELECT count(*)::text FROM steps")).containsExactly("0");
        execute(postgres.dataSource(), "INSERT INTO jobs (name) VALUES ('deploy')");
        assertThat(query(postgres.dataSource(), "SELECT id || ' ' || name FROM jobs")).containsExactly("1 deploy");
        execute(postgres.dataSource(), "DROP TABLE steps, jobs");
    }

    @Test
    void truncate_refuses_anything_but_table_names() {
        assertThatThrownBy(() -> postgres.truncate("jobs; DROP DATABASE postgres"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void a_restart_keeps_port_and_data_and_the_pool_reconnects() throws SQLException {
        execute(postgres.dataSource(), "CREATE TABLE survivors AS SELECT 'still here' AS note");
        int port = postgres.port();

        postgres.restartServer();

        assertThat(postgres.port()).isEqualTo(port);
        assertThat(query(postgres.dataSource(), "SELECT note FROM survivors")).containsExactly("still here");
        execute(postgres.dataSource(), "DROP TABLE survivors");
    }

    @Test
    void a_stopped_server_refuses_connections_until_it_is_started_again() throws SQLException {
        postgres.stopServer();
        try {
            assertThatThrownBy(() -> DriverManager.getConnection(postgres.jdbcUrl()).close())
                    .isInstanceOf(SQLException.class);
        } finally {
            postgres.startServer();
        }
        assertThat(query(postgres.dataSource(), "SELECT 'back'")).containsExactly("back");
    }

    static void execute(DataSource dataSource, String... statements) throws SQLException {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            for (String sql : statements) {
                statement.execute(sql);
            }
        }
    }

    static List<String> query(DataSource dataSource, String sql) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            return query(connection, sql);
        }
    }

    static List<String> query(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement(); ResultSet rows = statement.executeQuery(sql)) {
            List<String> values = new ArrayList<>();
            while (rows.next()) {
                values.add(rows.getString(1));
            }
            return values;
        }
    }
}
