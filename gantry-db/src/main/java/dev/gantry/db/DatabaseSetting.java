package dev.gantry.db;

/**
 * The database settings an operator can set, each read from one environment variable. The names here are the names
 * in error messages and in the logged configuration, so an operator can grep for what they saw.
 */
public enum DatabaseSetting {
    HOME("GANTRY_HOME", "directory for Gantry's own data; the embedded PostgreSQL cluster lives in its postgres/"),
    DATABASE_URL("GANTRY_DATABASE_URL",
            "external PostgreSQL server (jdbc:postgresql://… or postgres://user:pass@host:port/db); unset = embedded"),
    EMBEDDED_PORT("GANTRY_EMBEDDED_PG_PORT", "a TCP port on 127.0.0.1 for the embedded server besides its Unix socket "
            + "(password required); unset or 0 = none"),
    EMBEDDED_STARTUP_TIMEOUT("GANTRY_EMBEDDED_PG_STARTUP_TIMEOUT",
            "how long to wait for the embedded server to accept connections"),
    POOL_SIZE("GANTRY_DATABASE_POOL_SIZE", "most connections the pool holds open"),
    CONNECT_TIMEOUT("GANTRY_DATABASE_CONNECT_TIMEOUT",
            "how long to wait for a connection from the pool, and for the first one at start"),
    SOCKET_TIMEOUT("GANTRY_DATABASE_SOCKET_TIMEOUT",
            "how long to wait for the server's answer to a statement before giving the connection up as hung");

    private final String environmentVariable;
    private final String description;

    DatabaseSetting(String environmentVariable, String description) {
        this.environmentVariable = environmentVariable;
        this.description = description;
    }

    /** The environment variable this setting is read from, e.g. {@code GANTRY_DATABASE_POOL_SIZE}. */
    public String environmentVariable() {
        return environmentVariable;
    }

    /** One line for help texts and documentation. */
    public String description() {
        return description;
    }
}
