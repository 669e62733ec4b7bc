package dev.gantry.queue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.gantry.db.Database;
import dev.gantry.db.DatabaseSettings;
import dev.gantry.db.DatabaseUrl;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import java.time.Duration;

/**
 * Connection pools for fault tests: Gantry's own pool configuration ({@link Database#poolConfig}) with short
 * timeouts, so that a test of a server that is gone or hung takes seconds: a borrow gives up after
 * {@link #BORROW_TIMEOUT}, a statement the server does not answer after {@link #SOCKET_TIMEOUT}.
 */
final class TestPools {
    static final Duration BORROW_TIMEOUT = Duration.ofMillis(500);
    static final Duration SOCKET_TIMEOUT = Duration.ofSeconds(2);

    private TestPools() {
    }

    static HikariDataSource failingFast(DatabaseUrl url, String name, int size) {
        HikariConfig config = Database.poolConfig(url, DatabaseSettings.builder().poolSize(size)
                .connectTimeout(BORROW_TIMEOUT).socketTimeout(SOCKET_TIMEOUT).build());
        config.setPoolName(name);
        config.setMinimumIdle(0);
        config.setConnectionInitSql("SET TIME ZONE '" + EmbeddedPostgresExtension.SESSION_TIME_ZONE.getId() + "'");
        return new HikariDataSource(config);
    }
}
