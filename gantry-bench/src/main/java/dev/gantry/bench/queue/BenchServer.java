package dev.gantry.bench.queue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.gantry.db.Database;
import dev.gantry.db.DatabaseSettings;
import dev.gantry.db.DatabaseUrl;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import javax.sql.DataSource;

/**
 * The one embedded PostgreSQL of a run, started through gantry-db's {@link Database} (fsync and synchronous commit
 * on) in a temporary {@code GANTRY_HOME} that {@link #close()} deletes. Each system gets a database of its own on it,
 * and this class reads the server-wide figures the workloads report: the WAL position and dead tuples.
 *
 * <p>Not thread-safe except {@link #deadTuples}, which any thread may call.
 */
final class BenchServer implements AutoCloseable {
    private final Path home;
    private final Database database;

    private BenchServer(Path home, Database database) {
        this.home = home;
        this.database = database;
    }

    static BenchServer start() throws IOException {
        Path home = Files.createTempDirectory("gantry-bench-queue-");
        try {
            return new BenchServer(home, Database.start(DatabaseSettings.builder().home(home).poolSize(4).build()));
        } catch (RuntimeException e) {
            delete(home);
            throw e;
        }
    }

    /**
     * The server's version and durability settings, in one line. Throws when {@code fsync} or
     * {@code synchronous_commit} is off: the figures would then not be those of a durable queue.
     */
    String durability() throws SQLException {
        String version = show("server_version");
        String syncCommit = show("synchronous_commit");
        String fsync = show("fsync");
        String line = "PostgreSQL " + version + ": synchronous_commit=" + syncCommit + ", fsync=" + fsync
                + ", full_page_writes=" + show("full_page_writes") + ", wal_level=" + show("wal_level")
                + ", shared_buffers=" + show("shared_buffers") + ", data_checksums=" + show("data_checksums");
        if (!"on".equals(syncCommit) || !"on".equals(fsync)) {
            throw new IllegalStateException("the benchmark needs synchronous_commit and fsync on; " + line);
        }
        return line;
    }

    /** Creates an empty database {@code name} and a pool of {@code poolSize} connections to it. */
    HikariDataSource createDatabase(String name, int poolSize) {
        DatabaseUrl url = database.createDatabaseIfMissing(name);
        HikariConfig config = new HikariConfig();
        config.setPoolName("bench-" + name);
        config.setJdbcUrl(url.jdbcUrl());
        url.user().ifPresent(config::setUsername);
        url.password().ifPresent(config::setPassword);
        config.setMaximumPoolSize(poolSize);
        config.setMinimumIdle(poolSize);
        config.addDataSourceProperty("ApplicationName", "gantry-bench-" + name);
        return new HikariDataSource(config);
    }

    /** Drops a database whose pool has been closed, so its autovacuum cannot disturb the next system's figures. */
    void dropDatabase(String name) throws SQLException {
        try (Connection c = database.getDataSource().getConnection(); Statement s = c.createStatement()) {
            // DROP DATABASE takes no bind parameters; the names are this package's constants.
            s.execute("DROP DATABASE IF EXISTS \"" + name + "\" WITH (FORCE)");
        }
    }

    /** Flushes dirty pages, so that every workload starts with the same full-page-write cost ahead of it. */
    void checkpoint() throws SQLException {
        try (Connection c = database.getDataSource().getConnection(); Statement s = c.createStatement()) {
            s.execute("CHECKPOINT");
        }
    }

    /** The server's current WAL insert position. */
    String walPosition() throws SQLException {
        try (Connection c = database.getDataSource().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT pg_current_wal_lsn()::text")) {
            rs.next();
            return rs.getString(1);
        }
    }

    /** Bytes of WAL written since {@code position}, by every database on the server. */
    long walBytesSince(String position) throws SQLException {
        try (Connection c = database.getDataSource().getConnection();
             PreparedStatement s = c.prepareStatement("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), ?::pg_lsn)")) {
            s.setString(1, position);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /**
     * Dead tuples in the tables of {@code schemas} of the database behind {@code dataSource}, as the statistics
     * know them. Statistics lag: call {@link #settleStatistics} first when the figure must be current.
     */
    static long deadTuples(DataSource dataSource, List<String> schemas) throws SQLException {
        try (Connection c = dataSource.getConnection();
             PreparedStatement s = c.prepareStatement("SELECT coalesce(sum(n_dead_tup), 0) FROM pg_stat_user_tables"
                     + " WHERE schemaname = ANY (?)")) {
            Array names = c.createArrayOf("text", schemas.toArray());
            s.setArray(1, names);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /**
     * Waits until the statistics include what other sessions did until now. Backends report their counts at most
     * every 500 ms (PostgreSQL 14) or 1 s (15+, where {@code pg_stat_force_next_flush()} only covers the calling
     * session), so this waits 1.5 s.
     */
    static void settleStatistics() throws InterruptedException {
        Thread.sleep(1_500);
    }

    private String show(String setting) throws SQLException {
        try (Connection c = database.getDataSource().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SHOW " + setting)) { // a constant of this class, not input
            rs.next();
            return rs.getString(1);
        }
    }

    @Override
    public void close() {
        try {
            database.close();
        } finally {
            delete(home);
        }
    }

    private static void delete(Path directory) {
        try (Stream<Path> paths = Files.walk(directory)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | RuntimeException ignored) {
            // a temporary directory left behind is not worth failing a finished run for
        }
    }
}
