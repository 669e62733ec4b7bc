package dev.gantry.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGTERM (Ctrl-C, a service manager) stops a server that runs its own embedded PostgreSQL in order: its HTTP,
 * workers and pool first, the database last. When the database went first, the workers' last claims and completions
 * failed against it and every pooled connection was cut ("terminating connection due to administrator command").
 */
class GracefulStopIT {
    /** Kept when the test fails: the server's log is in {@code logs}, PostgreSQL's in {@code postgres.log}. */
    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path home;

    @Test
    void sigterm_stops_the_server_before_its_embedded_database() throws Exception {
        GantryProcesses gantry = new GantryProcesses(home, null, Map.of());
        try (gantry) {
            gantry.startServer();
            gantry.stopServer();
        }

        String postgres = Files.readString(home.resolve("postgres.log"), StandardCharsets.UTF_8);
        assertThat(postgres).contains("database system is shut down")
                .doesNotContain("terminating connection due to administrator command");
        assertThat(home.resolve("postgres").resolve("postmaster.pid")).as("no server left running").doesNotExist();
        assertThat(Files.readString(gantry.log("server-1"), StandardCharsets.UTF_8))
                .doesNotContain("database unavailable").doesNotContain("nothing closed the embedded PostgreSQL");
    }
}
