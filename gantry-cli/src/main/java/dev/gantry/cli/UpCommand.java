package dev.gantry.cli;

import dev.gantry.cli.client.GantryClient;
import dev.gantry.cli.client.GantryClientException;
import dev.gantry.cli.client.PipelineFollower;
import dev.gantry.scheduler.fleet.Cluster;
import dev.gantry.scheduler.fleet.FleetConfig;
import dev.gantry.server.GantryServer;
import dev.gantry.server.auth.TokenKind;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code gantry up}: everything a newcomer needs in one command. Starts the server on its embedded PostgreSQL with
 * an autoscaled fleet of local agents (child processes; the built-in fleet keeps one up and grows to four when jobs
 * wait), makes the bundled example project a git repository and registers it, triggers its pipeline, follows it on
 * the terminal, and keeps running until Ctrl-C.
 */
@Command(name = "up", mixinStandardHelpOptions = true, versionProvider = GantryCommand.ManifestVersion.class,
        description = {"Start Gantry with an autoscaled fleet of local agents, run the example pipeline, and keep "
                + "running until Ctrl-C.",
            "The server uses GANTRY_DATABASE_URL, else the embedded PostgreSQL under GANTRY_HOME (default ~/.gantry)."})
final class UpCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    ListenOptions listen;

    @Mixin
    FleetOption fleet;

    @Option(names = "--no-example", description = "Start the server and its fleet only.")
    boolean noExample;

    @Override
    public Integer call() throws InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        FleetConfig fleetConfig = fleet.config(FleetConfig.defaults());
        listen.allowAnyRepository(); // its example, and `gantry run DIR`, are directories on this machine
        GantryServer server = ServerCommand.start(listen, fleet, fleetConfig, err);
        if (server == null) {
            return 1;
        }
        Path home = server.tokenFile(TokenKind.ADMIN).getParent(); // the token files live in GANTRY_HOME
        CountDownLatch closed = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            closed.countDown();
        }, "gantry-up-shutdown"));
        String token = read(server.tokenFile(TokenKind.ADMIN));
        out.println("Gantry listening on " + server.listening());
        out.println("Admin API token: " + token + " (also in " + server.tokenFile(TokenKind.ADMIN) + ")");
        for (Cluster cluster : fleetConfig.clusters()) {
            out.println("Fleet: cluster " + cluster.name() + " (pool " + cluster.pool() + "), " + cluster.min() + " to "
                    + cluster.max() + " local agents of " + cluster.types().stream()
                            .map(t -> t.type().name() + " " + t.type().capacity()).toList()
                    + "; their logs are in " + home.resolve("logs"));
        }
        out.flush();
        if (!noExample) {
            try {
                runExample(new GantryClient(server.url(), token), home, out);
            } catch (GantryClientException | IllegalStateException e) {
                err.println("gantry up: the example pipeline could not run: " + e.getMessage());
                err.flush();
            }
        }
        out.println("Gantry keeps running; its web UI is " + server.listening() + "/ (sign in with the admin token).");
        out.println("Run your own repository's pipeline with: bin/gantry run DIR");
        out.println("Press Ctrl-C to stop.");
        out.flush();
        closed.await();
        return 0;
    }

    private static void runExample(GantryClient client, Path home, PrintWriter out) throws InterruptedException {
        Path repository = ExampleProject.ensure(home);
        String slug = Projects.ensure(client, "local", ExampleProject.NAME, repository);
        GantryClient.Answer triggered = client.post("/api/v2/project/" + slug + "/pipeline", Map.of("branch", "main"));
        if (!triggered.ok()) {
            throw new GantryClientException("triggering " + slug + ": " + triggered.message());
        }
        String pipeline = triggered.json().path("id").asText();
        out.println();
        out.println("Triggered pipeline " + triggered.json().path("number").asText() + " of " + slug + " ("
                + repository + "). Watch it in a browser (sign in with the admin token):");
        out.println("  " + client.server() + "/pipelines/" + slug + "/" + triggered.json().path("number").asText());
        out.println("or through the API:");
        out.println("  curl -H \"Circle-Token: $(cat " + home.resolve("admin-token") + ")\" " + client.server()
                + "/api/v2/pipeline/" + pipeline + "/workflow");
        out.println();
        out.flush();
        boolean success = new PipelineFollower(client, out).follow(slug, pipeline);
        out.println(success ? "The example pipeline succeeded." : "The example pipeline did not succeed.");
        out.println();
    }

    private static String read(Path tokenFile) {
        try {
            return Files.readString(tokenFile).strip();
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + tokenFile + ": " + e.getMessage(), e);
        }
    }
}
