package dev.gantry.testkit;

import dev.gantry.db.DatabaseUrl;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.ZoneId;
import java.util.regex.Pattern;

/**
 * A real PostgreSQL for integration tests: one embedded server per JVM (started on first use in a temporary
 * directory, without fsync; stopped by a JVM shutdown hook) and a fresh database of its own for each test class, so
 * that modules and classes never see each other's tables.
 *
 * <pre>{@code
 * class QueueIT {
 *     @RegisterExtension
 *     static final EmbeddedPostgresExtension postgres = new EmbeddedPostgresExtension();
 *
 *     @BeforeEach
 *     void clean() { postgres.truncate("queue_message"); }
 *
 *     @Test
 *     void ...() { Jdbi.create(postgres.dataSource()) ... }
 * }
 * }</pre>
 *
 * <p>Registered in a static field or with {@code @ExtendWith}, the database lives for the test class and is dropped
 * after it; registered in an instance field, each test gets its own. With {@code @ExtendWith}, tests can take a
 * {@link DataSource} or this extension as a parameter.
 *
 * <p>Every pooled connection uses the session time zone {@link #SESSION_TIME_ZONE}, far from UTC and with a 45-minute
 * offset, so code that silently depends on the server or JVM zone fails here rather than in production.
 *
 * <p>{@link #stopServer()}, {@link #startServer()} and {@link #restartServer()} act on the shared server, for fault
 * tests: a restart keeps port and data, and pools reconnect. Tests in one JVM must not run them concurrently with
 * other database tests. Accessors are thread-safe.
 */
public final class EmbeddedPostgresExtension implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback,
        AfterEachCallback, ParameterResolver {
    /** The session time zone of every pooled connection: UTC+12:45, or +13:45 in the southern summer. */
    public static final ZoneId SESSION_TIME_ZONE = ZoneId.of("Pacific/Chatham");
    public static final int DEFAULT_POOL_SIZE = 10;

    static final int TRUNCATE_ATTEMPTS = 5;
    private static final String DEADLOCK_DETECTED = "40P01";
    private static final Pattern TABLE_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)?");

    private final int poolSize;
    private volatile TestDatabase database;
    /** The unique id of the context that created {@link #database}; only that context drops it. */
    private volatile String owner;

    /** Pools of {@link #DEFAULT_POOL_SIZE} connections. */
    public EmbeddedPostgresExtension() {
        this(DEFAULT_POOL_SIZE);
    }

    /** @param poolSize the most connections {@link #dataSource()} holds open */
    public EmbeddedPostgresExtension(int poolSize) {
        if (poolSize < 1) {
            throw new IllegalArgumentException("poolSize must be at least 1, got " + poolSize);
        }
        this.poolSize = poolSize;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        createUnlessPresent(context);
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        createUnlessPresent(context);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        dropIfOwnedBy(context);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        dropIfOwnedBy(context);
    }

    /** A pool on this test's database; every connection has the session time zone {@link #SESSION_TIME_ZONE}. */
    public DataSource dataSource() {
        return current().pool();
    }

    /**
     * This test's database over TCP, with its user and password in the URL ({@code ?user=postgres&password=…}), for
     * tools that want a URL, such as Flyway or a child process. Connections opened from it get the JVM's time zone,
     * not {@link #SESSION_TIME_ZONE}.
     */
    public String jdbcUrl() {
        return url().jdbcUrl();
    }

    /** This test's database over TCP; user and password are also apart from the URL. */
    public DatabaseUrl url() {
        return SharedPostgres.url(current().name());
    }

    /** The name of this test's database, {@code test_} and 16 hex digits. */
    public String databaseName() {
        return current().name();
    }

    /** The shared server's TCP port on 127.0.0.1; stays the same across {@link #restartServer()}. */
    public int port() {
        return SharedPostgres.port();
    }

    /**
     * Empties tables, resetting their sequences, and those that reference them ({@code CASCADE}). A server under test
     * may be writing to them meanwhile (a background sweep); should PostgreSQL pick this statement as a deadlock's
     * victim, it is tried again, up to {@link #TRUNCATE_ATTEMPTS} times.
     *
     * @param tables names, optionally schema-qualified; not quoted, so written as in unquoted SQL
     * @throws IllegalArgumentException if a name is not a plain identifier
     */
    public void truncate(String... tables) {
        if (tables.length == 0) {
            return;
        }
        for (String table : tables) {
            if (!TABLE_NAME.matcher(table).matches()) {
                throw new IllegalArgumentException("not a table name: '" + table + "'");
            }
        }
        for (int attempt = 1; ; attempt++) {
            try (Connection connection = dataSource().getConnection();
                 Statement statement = connection.createStatement()) {
                // Names were checked against TABLE_NAME above; TRUNCATE takes no bind parameters.
                statement.execute("TRUNCATE TABLE " + String.join(", ", tables) + " RESTART IDENTITY CASCADE");
                return;
            } catch (SQLException failure) {
                if (attempt < TRUNCATE_ATTEMPTS && DEADLOCK_DETECTED.equals(failure.getSQLState())) {
                    continue;
                }
                throw new IllegalStateException("Cannot truncate " + String.join(", ", tables) + ": "
                        + failure.getMessage(), failure);
            }
        }
    }

    /** Stops the shared server (fast shutdown): open connections break and new ones fail until it starts again. */
    public void stopServer() {
        SharedPostgres.stop();
        evictPooledConnections();
    }

    /** Starts the shared server again, on the same port and with the same data. Does nothing if it runs. */
    public void startServer() {
        SharedPostgres.start();
    }

    /**
     * Freezes the shared server (SIGSTOP to it and its backends): connections still open, statements never answer,
     * as with a hung host or a network that drops packets. Always {@link #thawServer()} afterwards.
     */
    public void freezeServer() {
        SharedPostgres.signal("STOP");
    }

    /** Lets a frozen server run again; what its clients sent meanwhile is processed now. */
    public void thawServer() {
        SharedPostgres.signal("CONT");
    }

    /** Stops and starts the shared server; pooled connections are replaced as they are next borrowed. */
    public void restartServer() {
        stopServer();
        startServer();
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        return type == DataSource.class || type == EmbeddedPostgresExtension.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == DataSource.class ? dataSource() : this;
    }

    private synchronized void createUnlessPresent(ExtensionContext context) {
        if (database == null) {
            database = TestDatabase.create(poolSize, SESSION_TIME_ZONE);
            owner = context.getUniqueId();
        }
    }

    private synchronized void dropIfOwnedBy(ExtensionContext context) {
        if (database != null && context.getUniqueId().equals(owner)) {
            // A test that stopped the server leaves it stopped; the next test class should not pay for that.
            SharedPostgres.start();
            database.close();
            database = null;
            owner = null;
        }
    }

    private void evictPooledConnections() {
        TestDatabase current = database;
        if (current != null && current.pool().getHikariPoolMXBean() != null) {
            current.pool().getHikariPoolMXBean().softEvictConnections();
        }
    }

    private TestDatabase current() {
        TestDatabase current = database;
        if (current == null) {
            throw new IllegalStateException("No test database: register EmbeddedPostgresExtension with "
                    + "@RegisterExtension or @ExtendWith, and use it from a test or a @BeforeEach/@AfterEach method.");
        }
        return current;
    }
}
