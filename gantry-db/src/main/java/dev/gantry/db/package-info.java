/**
 * Where Gantry's PostgreSQL comes from, and the connection pool every other part of the server borrows from.
 *
 * <p>By default Gantry runs its own PostgreSQL ({@link dev.gantry.db.EmbeddedDatabase}) with its cluster under
 * {@code $GANTRY_HOME/postgres}, kept across restarts, which only Gantry's user can reach: a Unix socket in a 0700
 * directory and a password in a 0600 file ({@link dev.gantry.db.UnixSocketFactory} lets pgjdbc use the socket);
 * {@code GANTRY_DATABASE_URL} points at an external server instead. {@link dev.gantry.db.DatabaseSettings} reads and checks the settings (errors name the environment variable
 * and the rule), {@link dev.gantry.db.DatabaseUrl} understands both JDBC and {@code postgres://} URLs, and
 * {@link dev.gantry.db.Database} ties it together: start, one HikariCP pool, close. A server the process runs itself is
 * started again if its postmaster dies ({@code PostmasterSupervisor}).
 *
 * <p>What belongs here: bootstrapping a server and a pool. What does not: schemas, migrations and queries, which
 * belong to the module that owns the tables.
 */
package dev.gantry.db;
