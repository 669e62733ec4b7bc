package dev.gantry.cli;

import dev.gantry.db.DatabaseException;
import dev.gantry.db.DatabaseSettings;
import dev.gantry.queue.QueueException;
import dev.gantry.scheduler.fleet.FleetConfig;
import dev.gantry.server.GantryServer;
import dev.gantry.server.ServerException;
import dev.gantry.server.ServerSettings;
import dev.gantry.server.agent.AgentSettings;
import dev.gantry.server.auth.TokenKind;
import dev.gantry.server.retention.RetentionSettings;
import dev.gantry.server.storage.S3Settings;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code gantry server}: runs the Gantry server in the foreground until Ctrl-C (or SIGTERM), on the embedded
 * PostgreSQL under {@code GANTRY_HOME} or the server {@code GANTRY_DATABASE_URL} names. A JVM shutdown hook closes it,
 * so requests in flight finish and the embedded database shuts down cleanly.
 */
@Command(name = "server", mixinStandardHelpOptions = true, versionProvider = GantryCommand.ManifestVersion.class,
        description = {"Run the Gantry server until Ctrl-C.",
            "Uses GANTRY_DATABASE_URL, else the embedded PostgreSQL under GANTRY_HOME (default ~/.gantry); the admin "
                + "API token is written to GANTRY_HOME/admin-token on first start, the agents' token to "
                + "GANTRY_HOME/agent-token.",
            "Agent timings: " + AgentSettings.HEARTBEAT_INTERVAL_VARIABLE + " (default 2s), "
                + AgentSettings.LEASE_TIMEOUT_VARIABLE + " (30s), " + AgentSettings.POLL_TIMEOUT_VARIABLE
                + " (25s); see docs/agent-protocol.md.",
            "Retention: " + RetentionSettings.CACHES_VARIABLE + " (default 15d), "
                + RetentionSettings.WORKSPACES_VARIABLE + " (15d), " + RetentionSettings.ARTIFACTS_VARIABLE
                + " (30d); see docs/server.md.",
            "Storage: caches, workspaces, artifacts and job output are files under GANTRY_HOME, for one server per "
                + "database; " + S3Settings.BLOB_STORE_VARIABLE + "=s3://BUCKET/PREFIX keeps blobs in S3 (with "
                + S3Settings.ENDPOINT_VARIABLE + " for an S3-compatible server) and job output in the database, so "
                + "that several servers share them; see docs/storage.md.",
            "Self-protection: dispatch pauses on database distress (GANTRY_DISTRESS_*, GANTRY_DISPATCH_*), each token "
                + "is rate-limited (GANTRY_RATE_LIMIT_*) and reads are shed under overload (GANTRY_SHED_*); see "
                + "docs/reliability.md."})
final class ServerCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    ListenOptions listen;

    @Mixin
    FleetOption fleet;

    @Override
    public Integer call() throws InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        GantryServer server = start(listen, fleet, fleet.config(null), err);
        if (server == null) {
            return 1;
        }
        CountDownLatch closed = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            closed.countDown();
        }, "gantry-server-shutdown"));
        out.println("Gantry listening on " + server.listening());
        out.println("Admin API token: " + server.tokenFile(TokenKind.ADMIN) + " (send it as 'Circle-Token: <token>')");
        out.println("Agent token: " + server.tokenFile(TokenKind.AGENT) + " (agents send it as 'Authorization: "
                + "Bearer <token>')");
        out.println("Press Ctrl-C to stop.");
        out.flush();
        closed.await();
        return 0;
    }

    /**
     * Starts a server with the settings the environment and {@code listen} give, on the database the environment
     * names, autoscaling {@code fleet} with local agents (null: none), or reports why it cannot on {@code err} and
     * returns null.
     */
    static GantryServer start(ListenOptions listen, FleetOption option, FleetConfig fleet, PrintWriter err) {
        try {
            ServerSettings settings = listen.applyTo(ServerSettings.fromEnvironment(System.getenv()));
            DatabaseSettings database = DatabaseSettings.fromEnvironment(System.getenv());
            return GantryServer.start(settings, database,
                    option.local(fleet, database.home()));
        } catch (ServerException | DatabaseException | QueueException e) {
            err.println("gantry server: " + e.getMessage());
            err.flush();
            return null;
        }
    }
}
