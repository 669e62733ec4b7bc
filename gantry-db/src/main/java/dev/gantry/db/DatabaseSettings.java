package dev.gantry.db;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Where Gantry's database comes from and how the pool behaves. Read them with {@link #fromEnvironment} or build them
 * with {@link #builder()}; every value has a {@code DEFAULT_*} and is checked by {@link #validate()}, which
 * {@link Builder#build()} and {@link Database#start} call. A bad value is an {@link InvalidSettingException} naming the
 * environment variable and the rule, never silently replaced by a default.
 *
 * <p>Immutable and thread-safe; once a {@link Database} has started, its settings cannot change.
 *
 * @param home                   Gantry's data directory ({@code GANTRY_HOME}); the embedded cluster lives in
 *                               {@code home/postgres}
 * @param url                    an external server ({@code GANTRY_DATABASE_URL}); empty = run the embedded server
 * @param embeddedPort           a TCP port on 127.0.0.1 for the embedded server to listen on besides its Unix socket
 *                               ({@code GANTRY_EMBEDDED_PG_PORT}), password required there too; 0 = none, the default
 * @param embeddedStartupTimeout how long the embedded server may take to accept connections
 * @param poolSize               most connections in the pool ({@code GANTRY_DATABASE_POOL_SIZE})
 * @param connectTimeout         longest wait for a pooled connection, and for the first one at start (also the
 *                               driver's connect and login timeouts, rounded up to whole seconds)
 * @param socketTimeout          longest wait for the server's answer to one statement
 *                               ({@code GANTRY_DATABASE_SOCKET_TIMEOUT}): a hung server (stopped, or a network that
 *                               drops packets) then fails statements instead of holding their threads for ever
 */
public record DatabaseSettings(Path home, Optional<DatabaseUrl> url, int embeddedPort,
                               Duration embeddedStartupTimeout, int poolSize, Duration connectTimeout,
                               Duration socketTimeout) {

    /** {@code ~/.gantry}: the user's home directory as Java sees it, then {@code .gantry}. */
    public static final Path DEFAULT_HOME = Path.of(System.getProperty("user.home"), ".gantry");
    /** No TCP port: the embedded server listens on its Unix socket only, which only Gantry's user can reach. */
    public static final int DEFAULT_EMBEDDED_PORT = 0;
    /** Generous: the first start also creates the cluster, and a start after a crash replays the WAL. */
    public static final Duration DEFAULT_EMBEDDED_STARTUP_TIMEOUT = Duration.ofSeconds(60);
    public static final int DEFAULT_POOL_SIZE = 10;
    /** Short: requests wait this long for a connection before answering "503, retry later" when the database is away. */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(1);
    /** Far above any statement Gantry runs (those on the request path take milliseconds). */
    public static final Duration DEFAULT_SOCKET_TIMEOUT = Duration.ofSeconds(30);

    public static final int MAX_POOL_SIZE = 200;
    /** HikariCP's own lower bound for its connection timeout. */
    public static final Duration MIN_CONNECT_TIMEOUT = Duration.ofMillis(250);
    public static final Duration MAX_CONNECT_TIMEOUT = Duration.ofMinutes(10);
    /** The driver counts its socket timeout in whole seconds. */
    public static final Duration MIN_SOCKET_TIMEOUT = Duration.ofSeconds(1);
    public static final Duration MAX_SOCKET_TIMEOUT = Duration.ofHours(1);
    public static final Duration MIN_EMBEDDED_STARTUP_TIMEOUT = Duration.ofSeconds(1);
    public static final Duration MAX_EMBEDDED_STARTUP_TIMEOUT = Duration.ofMinutes(30);

    static final String PORT_RULE = "must be 0 (no TCP port, the Unix socket only) or an integer from 1024 to 65535";
    static final String POOL_SIZE_RULE = "must be an integer from 1 to " + MAX_POOL_SIZE;

    public DatabaseSettings {
        Objects.requireNonNull(home, "home");
        Objects.requireNonNull(url, "url");
        Objects.requireNonNull(embeddedStartupTimeout, "embeddedStartupTimeout");
        Objects.requireNonNull(connectTimeout, "connectTimeout");
        Objects.requireNonNull(socketTimeout, "socketTimeout");
    }

    /** Every setting at its default: an embedded server under {@code ~/.gantry}. */
    public static DatabaseSettings defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Reads the settings from environment variables, usually {@code System.getenv()}. An unset variable means the
     * default; a variable set to an empty value is an error, since it usually means a deployment template forgot to
     * fill it in. Setting an embedded-server variable together with {@code GANTRY_DATABASE_URL} is an error too.
     *
     * @throws InvalidSettingException for the first variable Gantry cannot use
     */
    public static DatabaseSettings fromEnvironment(Map<String, String> environment) {
        Builder builder = builder();
        for (DatabaseSetting setting : DatabaseSetting.values()) {
            String text = environment.get(setting.environmentVariable());
            if (text == null) {
                continue;
            }
            if (text.isBlank()) {
                throw new InvalidSettingException(setting, "is set but empty; unset it to use the default");
            }
            switch (setting) {
                case HOME -> builder.home(SettingValues.home(text, Path.of(System.getProperty("user.home"))));
                case DATABASE_URL -> builder.url(DatabaseUrl.parse(text.strip()));
                case EMBEDDED_PORT -> builder.embeddedPort(SettingValues.integer(setting, text, 0, 65535, PORT_RULE));
                case EMBEDDED_STARTUP_TIMEOUT -> builder.embeddedStartupTimeout(SettingValues.duration(setting, text,
                        MIN_EMBEDDED_STARTUP_TIMEOUT, MAX_EMBEDDED_STARTUP_TIMEOUT));
                case POOL_SIZE -> builder.poolSize(SettingValues.integer(setting, text, 1, MAX_POOL_SIZE,
                        POOL_SIZE_RULE));
                case CONNECT_TIMEOUT -> builder.connectTimeout(SettingValues.duration(setting, text,
                        MIN_CONNECT_TIMEOUT, MAX_CONNECT_TIMEOUT));
                case SOCKET_TIMEOUT -> builder.socketTimeout(SettingValues.duration(setting, text,
                        MIN_SOCKET_TIMEOUT, MAX_SOCKET_TIMEOUT));
            }
        }
        if (environment.containsKey(DatabaseSetting.DATABASE_URL.environmentVariable())) {
            for (DatabaseSetting embeddedOnly : new DatabaseSetting[] {
                    DatabaseSetting.EMBEDDED_PORT, DatabaseSetting.EMBEDDED_STARTUP_TIMEOUT}) {
                if (environment.containsKey(embeddedOnly.environmentVariable())) {
                    throw embeddedOnlyWithUrl(embeddedOnly);
                }
            }
        }
        return builder.build();
    }

    /**
     * Checks every rule; returns these settings so that calls can be chained.
     *
     * @throws InvalidSettingException for the first setting that breaks a rule
     */
    public DatabaseSettings validate() {
        SettingValues.requireAbsolute(home, home.toString());
        if (embeddedPort != 0) {
            SettingValues.requireRange(DatabaseSetting.EMBEDDED_PORT, embeddedPort, 1024, 65535, PORT_RULE);
        }
        if (embeddedPort != 0 && url.isPresent()) {
            throw embeddedOnlyWithUrl(DatabaseSetting.EMBEDDED_PORT);
        }
        SettingValues.requireRange(DatabaseSetting.EMBEDDED_STARTUP_TIMEOUT, embeddedStartupTimeout,
                MIN_EMBEDDED_STARTUP_TIMEOUT, MAX_EMBEDDED_STARTUP_TIMEOUT);
        SettingValues.requireRange(DatabaseSetting.POOL_SIZE, poolSize, 1, MAX_POOL_SIZE, POOL_SIZE_RULE);
        SettingValues.requireRange(DatabaseSetting.CONNECT_TIMEOUT, connectTimeout, MIN_CONNECT_TIMEOUT,
                MAX_CONNECT_TIMEOUT);
        SettingValues.requireRange(DatabaseSetting.SOCKET_TIMEOUT, socketTimeout, MIN_SOCKET_TIMEOUT,
                MAX_SOCKET_TIMEOUT);
        return this;
    }

    /** True when Gantry runs its own server, i.e. no {@code GANTRY_DATABASE_URL} is set. */
    public boolean embedded() {
        return url.isEmpty();
    }

    /** Where the embedded server keeps its cluster: {@code home/postgres}. */
    public Path embeddedDataDirectory() {
        return home.resolve("postgres");
    }

    /** The effective configuration as one line for the log, password masked. */
    public String describe() {
        String database = url.map(u -> "database=" + u)
                .orElseGet(() -> "database=embedded PostgreSQL in " + embeddedDataDirectory() + " on "
                        + (embeddedPort == 0 ? "its Unix socket only" : "its Unix socket and 127.0.0.1:" + embeddedPort)
                        + ", embeddedStartupTimeout=" + SettingValues.format(embeddedStartupTimeout));
        return "home=" + home + ", " + database + ", poolSize=" + poolSize
                + ", connectTimeout=" + SettingValues.format(connectTimeout)
                + ", socketTimeout=" + SettingValues.format(socketTimeout);
    }

    /** A builder holding these settings, to change a few. */
    public Builder toBuilder() {
        return builder().home(home).url(url.orElse(null)).embeddedPort(embeddedPort)
                .embeddedStartupTimeout(embeddedStartupTimeout).poolSize(poolSize).connectTimeout(connectTimeout)
                .socketTimeout(socketTimeout);
    }

    private static InvalidSettingException embeddedOnlyWithUrl(DatabaseSetting setting) {
        return new InvalidSettingException(setting, "applies only to the embedded server; unset it or "
                + DatabaseSetting.DATABASE_URL.environmentVariable());
    }

    /**
     * Collects settings, starting from the defaults; {@link #build()} validates. Not thread-safe; use one per thread.
     */
    public static final class Builder {
        private Path home = DEFAULT_HOME;
        private DatabaseUrl url;
        private int embeddedPort = DEFAULT_EMBEDDED_PORT;
        private Duration embeddedStartupTimeout = DEFAULT_EMBEDDED_STARTUP_TIMEOUT;
        private int poolSize = DEFAULT_POOL_SIZE;
        private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
        private Duration socketTimeout = DEFAULT_SOCKET_TIMEOUT;

        private Builder() {
        }

        public Builder home(Path home) {
            this.home = Objects.requireNonNull(home, "home");
            return this;
        }

        /** An external server; {@code null} means the embedded one. */
        public Builder url(DatabaseUrl url) {
            this.url = url;
            return this;
        }

        /** An external server, in either form {@link DatabaseUrl#parse} reads. */
        public Builder url(String url) {
            return url(DatabaseUrl.parse(url));
        }

        /** A TCP port on 127.0.0.1 besides the Unix socket; 0, the default, for none. */
        public Builder embeddedPort(int embeddedPort) {
            this.embeddedPort = embeddedPort;
            return this;
        }

        public Builder embeddedStartupTimeout(Duration embeddedStartupTimeout) {
            this.embeddedStartupTimeout = Objects.requireNonNull(embeddedStartupTimeout, "embeddedStartupTimeout");
            return this;
        }

        public Builder poolSize(int poolSize) {
            this.poolSize = poolSize;
            return this;
        }

        public Builder connectTimeout(Duration connectTimeout) {
            this.connectTimeout = Objects.requireNonNull(connectTimeout, "connectTimeout");
            return this;
        }

        public Builder socketTimeout(Duration socketTimeout) {
            this.socketTimeout = Objects.requireNonNull(socketTimeout, "socketTimeout");
            return this;
        }

        /** @throws InvalidSettingException if any value breaks its rule */
        public DatabaseSettings build() {
            return new DatabaseSettings(home, Optional.ofNullable(url), embeddedPort, embeddedStartupTimeout,
                    poolSize, connectTimeout, socketTimeout).validate();
        }
    }
}
