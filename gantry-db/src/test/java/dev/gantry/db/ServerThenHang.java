package dev.gantry.db;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;

/**
 * Run in a child JVM by {@link EmbeddedDatabaseIT}: starts a durable embedded server on the data directory given as
 * the only argument, commits one row, prints {@code ready}, then waits to be killed, never closing the server.
 */
public final class ServerThenHang {
    private ServerThenHang() {
    }

    public static void main(String[] args) throws Exception {
        EmbeddedDatabase server = EmbeddedDatabase.start(Path.of(args[0]), 0, Duration.ofSeconds(30),
                EmbeddedDatabase.Durability.DURABLE);
        try (Connection connection = EmbeddedDatabaseIT.connect(server);
             Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE survivors (name text)");
            statement.execute("INSERT INTO survivors VALUES ('written before the kill')");
        }
        System.out.println("ready");
        System.out.flush();
        Thread.sleep(Duration.ofMinutes(5));
    }
}
