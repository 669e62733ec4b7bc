package dev.gantry.db;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.pool.HikariPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;

/**
 * Gantry's database: the embedded server under {@code GANTRY_HOME}, or the one {@code GANTRY_DATABASE_URL} names,
 * behind one HikariCP pool.
 *
 * <pre>{@code
 * try (Database database = Database.start(DatabaseSettings.fromEnvironment(System.getenv()))) {
 *     Jdbi jdbi = Jdbi.create(database.getDataSource());
 *     ...
 * }
 * }</pre>
 *
 * <p>Thread-safe: the data source is shared by all threads. {@link #close()} closes the pool, then stops the embedded
 * server; after that the data source refuses connections.
 */
public final class Database implements AutoCloseable {
    /** The database Gantry uses on its embedded server; created on first start. */
    public static final String EMBEDDED_DATABASE_NAME = "gantry";

    private static final Logger LOG = LoggerFactory.getLogger(Database.class);
    /** How long a start keeps trying a database that is there but does not answer within the connect timeout. */
    static final Duration START_PATIENCE = Duration.ofSeconds(30);
    private static final Pattern DATABASE_NAME = Pattern.compile("[a-z_][a-z0-9_]{0,62}");
    private static final String DUPLICATE_DATABASE = "42P04";
    private static final String INVALID_PASSWORD = "28P01";
    /** Longest {@link #close()} waits for other processes to disconnect from the embedded server it stops. */
    static final Duration OTHERS_CLOSE_WAIT = Duration.ofSeconds(10);
    private static final Duration OTHERS_POLL = Duration.ofMillis(100);

    private final DatabaseSettings settings;
    private final EmbeddedDatabase embedded;
    private final DatabaseUrl url;
    private final HikariDataSource pool;
    private final AtomicBoolean closed = new AtomicBoolean();

    private Database(DatabaseSettings settings, EmbeddedDatabase embedded, DatabaseUrl url, HikariDataSource pool) {
        this.settings = settings;
        this.embedded = embedded;
        this.url = url;
        this.pool = pool;
    }

    /**
     * Validates the settings, starts the embedded server unless a URL is set (creating its {@code gantry} database on
     * first start), opens the pool with one connection to prove the server is reachable, and logs the effective
     * configuration once, password masked. The embedded server is supervised until {@link #close()}: if its postmaster
     * dies it is started again, and the pool, which checks a connection that sat idle before lending it, hands out
     * working connections once it is back (borrows meanwhile fail within the connect timeout).
     *
     * @throws InvalidSettingException if a setting breaks its rule; nothing has been started then
     * @throws DatabaseStartException  if the server does not start, refuses the connection or the login, or does not
     *                                 answer within the connect timeout for {@link #START_PATIENCE}; whatever was
     *                                 started has been stopped again
     */
    public static Database start(DatabaseSettings settings) {
        settings.validate();
        EmbeddedDatabase embedded = settings.embedded() ? startEmbedded(settings) : null;
        try {
            DatabaseUrl url = settings.url().orElseGet(() -> embeddedGantryDatabase(embedded));
            HikariDataSource pool = openPool(url, settings);
            LOG.info("Database: {}{}", settings.describe(), embedded == null ? "" : "; embedded server on "
                    + embedded.socketFile() + (embedded.listensOnTcp() ? " and 127.0.0.1:" + embedded.port() : "")
                    + ", using " + url);
            return new Database(settings, embedded, url, pool);
        } catch (RuntimeException failure) {
            if (embedded != null) {
                embedded.close();
            }
            throw failure;
        }
    }

    /**
     * As {@link #start}, except that when another process runs the embedded server ({@code gantry up} is running),
     * this connects to that server instead of being refused its data directory: for the command-line tools that look
     * at a running Gantry's database. Waits up to the embedded start-up timeout for a server that is still starting.
     * Closing such a database closes only its pool.
     */
    public static Database startOrAttach(DatabaseSettings settings) {
        try {
            return start(settings);
        } catch (DataDirectoryInUseException inUse) {
            int port = RunningPostmaster.awaitReadyPort(inUse.dataDirectory(), settings.embeddedStartupTimeout());
            DatabaseUrl url = EmbeddedDatabase.urlOfServerRunBy(inUse.dataDirectory(), port, EMBEDDED_DATABASE_NAME);
            HikariDataSource pool = openPool(url, settings);
            LOG.info("Database: {}; the embedded server of another process, using {}", settings.describe(), url);
            return new Database(settings, null, url, pool);
        }
    }

    /** The pool; hand it to JDBI, Flyway or plain JDBC. Borrowing waits at most the connect timeout. */
    public DataSource getDataSource() {
        return pool;
    }

    /** The JDBC URL the pool connects to (credentials are kept apart, see {@link #url()}). */
    public String jdbcUrl() {
        return url.jdbcUrl();
    }

    /** The pool's server, database and credentials; its {@code toString()} masks the password. */
    public DatabaseUrl url() {
        return url;
    }

    public DatabaseSettings settings() {
        return settings;
    }

    /** True when this process runs the server itself. */
    public boolean isEmbedded() {
        return embedded != null;
    }

    /**
     * Creates another database on the same server unless it exists, e.g. a shard, and says how to reach it with the
     * same credentials. Safe to call concurrently, also from several processes.
     *
     * @param name lower-case letters, digits and '_', starting with a letter or '_', at most 63 characters
     * @throws IllegalArgumentException if the name breaks that rule
     * @throws DatabaseException        if the server refuses (e.g. the user may not create databases)
     */
    public DatabaseUrl createDatabaseIfMissing(String name) {
        if (!DATABASE_NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("database name must match " + DATABASE_NAME + ", got '" + name + "'");
        }
        try (Connection connection = pool.getConnection()) {
            createIfMissing(connection, name);
        } catch (SQLException failure) {
            throw new DatabaseException("Cannot create database '" + name + "' on " + url + ": "
                    + failure.getMessage(), failure);
        }
        return url.withDatabase(name);
    }

    /**
     * Closes the pool, then stops the embedded server if this process runs one, once other processes attached to it
     * ({@link #startOrAttach}) have disconnected or after {@link #OTHERS_CLOSE_WAIT}. Idempotent.
     */
    @Override
    public void close() {
        if (closed.getAndSet(true)) {
            return;
        }
        try {
            pool.close();
        } finally {
            if (embedded != null) {
                awaitOtherClients();
                embedded.close();
            }
        }
    }

    /**
     * Waits for the connections of other processes to the embedded server to end: a {@code gantry queue} command
     * that attached to the server this process started would otherwise lose it mid-statement. The commands take a
     * second or so; anything still connected after the wait (a {@code psql} session) is cut off by the fast stop.
     */
    private void awaitOtherClients() {
        long deadline = System.nanoTime() + OTHERS_CLOSE_WAIT.toNanos();
        try (Connection connection = maintenanceConnection(embedded);
             PreparedStatement others = connection.prepareStatement("SELECT count(*) FROM pg_stat_activity "
                     + "WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()")) {
            boolean logged = false;
            for (long count; (count = countOf(others)) > 0; ) {
                if (System.nanoTime() - deadline > 0) {
                    LOG.warn("Stopping the embedded database with {} connections of other processes still open", count);
                    return;
                }
                if (!logged) {
                    LOG.info("Waiting up to {} for {} connections of other processes before stopping the embedded "
                            + "database", SettingValues.format(OTHERS_CLOSE_WAIT), count);
                    logged = true;
                }
                Thread.sleep(OTHERS_POLL.toMillis());
            }
        } catch (SQLException failure) {
            LOG.warn("Cannot see who else is connected to the embedded database; stopping it: {}", failure.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static long countOf(PreparedStatement query) throws SQLException {
        try (ResultSet rows = query.executeQuery()) {
            rows.next();
            return rows.getLong(1);
        }
    }

    /** The embedded server Gantry runs, supervised: on its Unix socket only, unless a port is set. */
    private static EmbeddedDatabase startEmbedded(DatabaseSettings settings) {
        EmbeddedDatabase embedded = settings.embeddedPort() == 0
                ? EmbeddedDatabase.start(settings.embeddedDataDirectory(), settings.embeddedStartupTimeout(),
                        EmbeddedDatabase.Durability.DURABLE)
                : EmbeddedDatabase.start(settings.embeddedDataDirectory(), settings.embeddedPort(),
                        settings.embeddedStartupTimeout(), EmbeddedDatabase.Durability.DURABLE);
        embedded.superviseRestarts();
        return embedded;
    }

    /** A connection of its own, outside the pool, to the embedded server's {@code postgres} database. */
    private static Connection maintenanceConnection(EmbeddedDatabase embedded) throws SQLException {
        DatabaseUrl postgres = embedded.url("postgres");
        Properties login = new Properties();
        login.setProperty("user", postgres.user().orElseThrow());
        login.setProperty("password", postgres.password().orElseThrow());
        return DriverManager.getConnection(postgres.jdbcUrl(), login);
    }

    private static DatabaseUrl embeddedGantryDatabase(EmbeddedDatabase embedded) {
        try (Connection connection = maintenanceConnection(embedded)) {
            createIfMissing(connection, EMBEDDED_DATABASE_NAME);
        } catch (SQLException failure) {
            String hint = INVALID_PASSWORD.equals(failure.getSQLState()) ? " (it does not know the password in "
                    + embedded.passwordFile() + "; delete that file and start again to set a new one)" : "";
            throw new DatabaseStartException("Cannot create the '" + EMBEDDED_DATABASE_NAME + "' database on the "
                    + "embedded server in " + embedded.dataDirectory() + ": " + failure.getMessage() + hint, failure);
        }
        return embedded.url(EMBEDDED_DATABASE_NAME);
    }

    private static void createIfMissing(Connection connection, String name) throws SQLException {
        try (PreparedStatement exists = connection.prepareStatement("SELECT 1 FROM pg_database WHERE datname = ?")) {
            exists.setString(1, name);
            if (exists.executeQuery().next()) {
                return;
            }
        }
        try (Statement create = connection.createStatement()) {
            // CREATE DATABASE takes no bind parameters; the name was checked against DATABASE_NAME.
            create.execute("CREATE DATABASE \"" + name + "\"");
        } catch (SQLException failure) {
            if (!DUPLICATE_DATABASE.equals(failure.getSQLState())) {
                throw failure;
            }
        }
    }

    /**
     * The pool configuration Gantry uses for {@code url}: size and timeouts from {@code settings}, and the driver's
     * connect, login and socket timeouts, so that an unreachable or hung server fails a borrow or a statement within
     * its timeout instead of holding the caller. Tests build their pools from it too.
     */
    public static HikariConfig poolConfig(DatabaseUrl url, DatabaseSettings settings) {
        HikariConfig config = new HikariConfig();
        config.setPoolName("gantry");
        config.setJdbcUrl(url.jdbcUrl());
        url.user().ifPresent(config::setUsername);
        url.password().ifPresent(config::setPassword);
        config.setMaximumPoolSize(settings.poolSize());
        config.setConnectionTimeout(settings.connectTimeout().toMillis());
        config.setInitializationFailTimeout(settings.connectTimeout().toMillis());
        // Checking an idle connection before lending it must fit in the borrow (HikariCP's floor is 250 ms).
        config.setValidationTimeout(Math.max(250, settings.connectTimeout().toMillis() / 2));
        // Defaults for the driver; parameters in the URL take precedence. It counts in whole seconds.
        String connectSeconds = String.valueOf(Math.max(1, ceilSeconds(settings.connectTimeout())));
        config.addDataSourceProperty("ApplicationName", "gantry");
        config.addDataSourceProperty("connectTimeout", connectSeconds);
        config.addDataSourceProperty("loginTimeout", connectSeconds);
        config.addDataSourceProperty("socketTimeout", String.valueOf(ceilSeconds(settings.socketTimeout())));
        config.addDataSourceProperty("tcpKeepAlive", "true");
        return config;
    }

    private static long ceilSeconds(Duration d) {
        return (d.toMillis() + 999) / 1000;
    }

    /**
     * Opens the pool with its first connection. A server that is there but slow to answer (a connect or login that
     * times out: a loaded machine, a database still starting) is tried again for up to {@link #START_PATIENCE}; one
     * that refuses the connection (nothing listens) or the login fails the start at once.
     */
    private static HikariDataSource openPool(DatabaseUrl url, DatabaseSettings settings) {
        HikariConfig config = poolConfig(url, settings);
        long deadline = System.nanoTime() + START_PATIENCE.toNanos();
        while (true) {
            try {
                return new HikariDataSource(config);
            } catch (HikariPool.PoolInitializationException failure) {
                Throwable cause = failure.getCause() == null ? failure : failure.getCause();
                if (!slowToAnswer(cause) || System.nanoTime() > deadline) {
                    throw new DatabaseStartException("Cannot connect to " + url + " within "
                            + SettingValues.format(settings.connectTimeout()) + ": " + cause.getMessage(), failure);
                }
                LOG.warn("The database at {} did not answer within {} ({}); trying again", url,
                        SettingValues.format(settings.connectTimeout()), cause.getMessage());
            }
        }
    }

    /** A connection attempt that ran out of time, as opposed to one refused or a login rejected. */
    private static boolean slowToAnswer(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof ConnectException) {
                return false;
            }
            if (t instanceof SocketTimeoutException) {
                return true;
            }
        }
        // The driver's own login timeout ("Connection attempt timed out.") carries no cause.
        return failure instanceof SQLException sql && "08001".equals(sql.getSQLState())
                && String.valueOf(sql.getMessage()).contains("timed out");
    }
}
