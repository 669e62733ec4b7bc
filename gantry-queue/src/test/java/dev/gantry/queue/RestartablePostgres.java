package dev.gantry.queue;

import com.zaxxer.hikari.HikariDataSource;
import dev.gantry.db.EmbeddedDatabase;
import java.nio.file.Path;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * An embedded PostgreSQL server of its own (not the testkit's shared one), for tests that need several servers and
 * stop one of them: {@link #stop()} and {@link #start()} keep the port and the data, and the pool reconnects by itself.
 * Start and stop from one thread.
 */
final class RestartablePostgres implements AutoCloseable {
    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(60);

    private final Path dataDirectory;
    private final int port;
    private final HikariDataSource pool;
    private EmbeddedDatabase server;

    private RestartablePostgres(Path dataDirectory, EmbeddedDatabase server, HikariDataSource pool) {
        this.dataDirectory = dataDirectory;
        this.server = server;
        this.port = server.port();
        this.pool = pool;
    }

    /** Creates a cluster in {@code dataDirectory} and starts it on a free port, with a pool on its {@code postgres}. */
    static RestartablePostgres start(Path dataDirectory, String name, int poolSize) {
        EmbeddedDatabase server = EmbeddedDatabase.start(dataDirectory, 0, STARTUP_TIMEOUT,
                EmbeddedDatabase.Durability.THROWAWAY);
        try {
            return new RestartablePostgres(dataDirectory, server,
                    TestPools.failingFast(server.url("postgres"), name, poolSize));
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
    }

    DataSource dataSource() {
        return pool;
    }

    /** Stops the server (fast shutdown): sessions break and new connections are refused until {@link #start()}. */
    void stop() {
        if (server != null) {
            server.close();
            server = null;
        }
    }

    /** Starts the server again, on the same port with the same data. */
    void start() {
        if (server == null) {
            server = EmbeddedDatabase.start(dataDirectory, port, STARTUP_TIMEOUT,
                    EmbeddedDatabase.Durability.THROWAWAY);
        }
    }

    @Override
    public void close() {
        pool.close();
        stop();
    }
}
