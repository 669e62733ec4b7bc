package dev.gantry.queue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.gantry.db.DatabaseUrl;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import java.time.Duration;

/**
 * Connection pools for fault tests, set up the way a queue's pool should be in production: a borrow gives up after
 * {@link #BORROW_TIMEOUT} when the server is gone, so callers get {@link QueueUnavailableException} in well under a
 * second or two instead of hanging; a socket read gives up after {@link #SOCKET_TIMEOUT}.
 */
final class TestPools {
    /** Hikari's {@code connectionTimeout}: how long an enqueue waits for a connection before it fails. */
    static final Duration BORROW_TIMEOUT = Duration.ofMillis(500);
    static final Duration SOCKET_TIMEOUT = Duration.ofSeconds(30);

    private TestPools() {
    }

    static HikariDataSource failingFast(DatabaseUrl url, String name, int size) {
        HikariConfig config = new HikariConfig();
        config.setPoolName(name);
        config.setJdbcUrl(url.jdbcUrl());
        url.user().ifPresent(config::setUsername);
        url.password().ifPresent(config::setPassword);
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(0);
        config.setConnectionTimeout(BORROW_TIMEOUT.toMillis());
        config.setValidationTimeout(250);
        config.addDataSourceProperty("connectTimeout", "1");
        config.addDataSourceProperty("socketTimeout", String.valueOf(SOCKET_TIMEOUT.toSeconds()));
        config.setConnectionInitSql("SET TIME ZONE '" + EmbeddedPostgresExtension.SESSION_TIME_ZONE.getId() + "'");
        return new HikariDataSource(config);
    }
}
