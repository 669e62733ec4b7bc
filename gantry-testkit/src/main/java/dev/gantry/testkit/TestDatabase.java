package dev.gantry.testkit;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.gantry.db.Database;
import dev.gantry.db.DatabaseSettings;
import dev.gantry.db.DatabaseUrl;
import dev.gantry.db.EmbeddedDatabase;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.ZoneId;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One freshly created database on the {@link SharedPostgres} server, and a pool whose every connection uses a given
 * session time zone. {@link #close()} closes the pool and drops the database. Thread-safe.
 */
final class TestDatabase implements AutoCloseable {
    private final String name;
    private final HikariDataSource pool;

    private TestDatabase(String name, HikariDataSource pool) {
        this.name = name;
        this.pool = pool;
    }

    static TestDatabase create(int poolSize, ZoneId sessionTimeZone) {
        SharedPostgres.start();
        String name = "test_" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());
        // Names are generated above, never taken from a test; CREATE/DROP DATABASE take no bind parameters.
        maintenance("CREATE DATABASE " + name);
        // Gantry's own pool settings, with a longer borrow timeout: a test's first borrow may wait for the server.
        HikariConfig config = Database.poolConfig(SharedPostgres.url(name), DatabaseSettings.builder()
                .poolSize(poolSize).connectTimeout(Duration.ofSeconds(5)).build());
        config.setPoolName(name);
        config.setUsername(EmbeddedDatabase.SUPERUSER);
        config.setMinimumIdle(0);
        // pgjdbc sends the JVM's zone at connect, overriding a zone in the URL's options; so set it afterwards.
        config.setConnectionInitSql("SET TIME ZONE '" + sessionTimeZone.getId() + "'");
        return new TestDatabase(name, new HikariDataSource(config));
    }


    String name() {
        return name;
    }

    HikariDataSource pool() {
        return pool;
    }

    @Override
    public void close() {
        pool.close();
        maintenance("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
    }

    private static void maintenance(String sql) {
        DatabaseUrl postgres = SharedPostgres.url("postgres");
        try (Connection connection = DriverManager.getConnection(postgres.jdbcUrl(), postgres.user().orElseThrow(),
                postgres.password().orElseThrow());
             Statement statement = connection.createStatement()) {
            statement.execute(sql);
        } catch (SQLException failure) {
            throw new IllegalStateException("Test PostgreSQL refused: " + sql + ": " + failure.getMessage(), failure);
        }
    }
}
