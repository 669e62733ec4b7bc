package dev.gantry.cli;

import dev.gantry.cli.client.GantryClient;
import dev.gantry.cli.client.GantryClientException;
import dev.gantry.cli.client.PipelineFollower;
import dev.gantry.db.DatabaseException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code gantry run [DIR]}: runs a local repository's pipeline on a running server. Registers the repository as
 * project {@code gantry/local/<directory name>} if needed, triggers a pipeline for its current branch and commit,
 * follows every job's output, and exits 0 if the pipeline succeeded, 1 if not (2 if it could not run at all).
 */
@Command(name = "run", mixinStandardHelpOptions = true, versionProvider = GantryCommand.ManifestVersion.class,
        description = {"Run the pipeline of a local git repository's current commit on a running Gantry server.",
            "Exits 0 if the pipeline succeeded, 1 if it did not, 2 if it could not be run."})
final class RunCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", arity = "0..1", paramLabel = "DIR",
            description = "A directory in the git repository (default: the current directory).")
    Path dir;

    @Mixin
    ServerOptions serverOptions;

    @Override
    public Integer call() throws InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try {
            Path start = (dir == null ? Path.of("") : dir).toAbsolutePath();
            Path repository = Path.of(Git.run(start, "rev-parse", "--show-toplevel"));
            String branch = Git.run(repository, "rev-parse", "--abbrev-ref", "HEAD");
            String revision = Git.run(repository, "rev-parse", "HEAD");
            if (branch.equals("HEAD")) {
                err.println("gantry run: " + repository + " is not on a branch (detached HEAD); check out a branch");
                return 2;
            }
            if (!Git.run(repository, "status", "--porcelain", "--untracked-files=no").isEmpty()) {
                out.println("Note: uncommitted changes are not part of the run; Gantry builds commit "
                        + revision.substring(0, 12) + ".");
            }
            GantryClient client = serverOptions.client();
            String name = repository.getFileName().toString();
            String slug = Projects.ensure(client, "local", name, repository);
            GantryClient.Answer triggered = client.post("/api/v2/project/" + slug + "/pipeline",
                    Map.of("branch", branch, "revision", revision));
            if (!triggered.ok()) {
                err.println("gantry run: triggering " + slug + ": " + triggered.message());
                return 2;
            }
            out.println("Pipeline " + triggered.json().path("number").asText() + " of " + slug + " on " + branch
                    + " at " + revision.substring(0, 12) + " (id " + triggered.json().path("id").asText() + ")");
            out.flush();
            boolean success = new PipelineFollower(client, out).follow(slug, triggered.json().path("id").asText());
            return success ? 0 : 1;
        } catch (GantryClientException | IllegalStateException | DatabaseException e) {
            err.println("gantry run: " + e.getMessage());
            return 2;
        }
    }
}
