package dev.gantry.agent.task;

import dev.gantry.config.plan.Step;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * {@code store_artifacts}: uploads a file, or every file under a directory, one by one. An artifact's path is the
 * {@code destination} (default: the path's own name) joined with the file's path under {@code path}. A path that does
 * not exist is noted and is not a failure, as in CircleCI.
 */
final class ArtifactStep {
    private ArtifactStep() {
    }

    static StepResult run(StepContext ctx, Step.StoreArtifacts step) throws IOException, InterruptedException {
        if (step.path() == null) {
            ctx.log().line("store_artifacts needs a path");
            return StepResult.FAILED;
        }
        Path inSandbox = ctx.path(step.path());
        Optional<Path> copy = ctx.sandbox().read(inSandbox, ctx.dir().newStaging());
        if (copy.isEmpty()) {
            ctx.log().line("No artifact files found at " + step.path() + " (" + inSandbox + ")");
            return StepResult.SUCCESS;
        }
        Path source = copy.get();
        String destination = step.destination() != null ? step.destination().replaceAll("^/+|/+$", "")
                : inSandbox.getFileName() == null ? "artifacts" : inSandbox.getFileName().toString();
        List<Path> files;
        try (Stream<Path> walk = Files.walk(source)) {
            files = walk.filter(Files::isRegularFile).sorted().toList();
        }
        for (Path file : files) {
            String relative = source.relativize(file).toString();
            // a file may be named after a secret, and the path is shown wherever the artifact is
            String name = ctx.masker().mask(relative.isEmpty() ? destination : destination + "/" + relative);
            ctx.server().uploadArtifact(ctx.task(), name, file);
            ctx.log().line("Uploaded " + name);
        }
        ctx.log().line("Stored " + files.size() + " artifact" + (files.size() == 1 ? "" : "s"));
        return StepResult.SUCCESS;
    }
}
