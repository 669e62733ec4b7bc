package dev.gantry.server;

import javax.sql.DataSource;
import org.flywaydb.core.Flyway;

/**
 * The server's schema, {@code gantry}, migrated by Flyway with its own history table in that schema, apart from the
 * queue's {@code gantry_queue}. Migrations are {@code db/gantry_server/V*.sql}; the location is not {@code db/gantry}
 * because that would also be a prefix of the queue's {@code db/gantry_queue}.
 */
public final class ServerSchema {
    static final String SCHEMA = "gantry";

    private ServerSchema() {
    }

    /** Applies pending migrations; safe from several processes at once (Flyway takes a lock). */
    public static void migrate(DataSource dataSource) {
        try {
            Flyway.configure().dataSource(dataSource).schemas(SCHEMA).defaultSchema(SCHEMA)
                    .table("flyway_schema_history").locations("classpath:db/gantry_server").load().migrate();
        } catch (RuntimeException e) {
            throw new ServerStartException("Cannot migrate the " + SCHEMA + " schema: " + e.getMessage(), e);
        }
    }
}
