package dev.gantry.agent.task;

import dev.gantry.agent.protocol.Assignment;
import dev.gantry.config.plan.Step;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * {@code checkout}: clones the project's {@code vcs_url} into the working directory (or {@code path}) and checks out
 * the pipeline's revision, on a local branch of the pipeline's branch name when there is one
 * ({@code git checkout -B BRANCH SHA}, as CircleCI does), detached otherwise. A directory that already holds a
 * repository is fetched instead of cloned. A revision that no branch reaches (a rerun of a commit force-pushed away)
 * is fetched by its id. Each git command is echoed into the output before it runs.
 */
final class CheckoutStep {
    private CheckoutStep() {
    }

    static StepResult run(StepContext ctx, Step.Checkout step) throws IOException, InterruptedException {
        Assignment.Project project = ctx.assignment().project();
        Assignment.Pipeline pipeline = ctx.assignment().pipeline();
        if (project.vcsUrl() == null || project.vcsUrl().isBlank()) {
            ctx.log().line("The project has no repository URL to check out.");
            return StepResult.FAILED;
        }
        Path target = step.path() == null ? ctx.workingDirectory() : ctx.path(step.path());
        Files.createDirectories(target);
        Map<String, String> env = CircleEnvironment.withStep(ctx.environment(), Map.of("GIT_TERMINAL_PROMPT", "0"));
        List<String> fetch;
        if (Files.isDirectory(target.resolve(".git"))) {
            ctx.log().line("Using the existing repository in " + target);
            fetch = List.of("git", "fetch", "--force", "--tags", "origin");
        } else if (!isEmpty(target)) {
            ctx.log().line("Directory " + target + " is not empty and not a git repository: cannot check out into it.");
            return StepResult.FAILED;
        } else {
            fetch = List.of("git", "clone", "--no-checkout", project.vcsUrl(), ".");
        }
        StepResult fetched = git(ctx, fetch, target, env);
        if (!fetched.succeeded()) {
            return fetched;
        }
        String revision = pipeline.revision();
        List<String> checkout;
        if (revision == null || revision.isBlank()) {
            checkout = List.of("git", "checkout", pipeline.branch() == null ? "HEAD" : pipeline.branch());
        } else {
            if (!git(ctx, List.of("git", "rev-parse", "--quiet", "--verify", revision + "^{commit}"), target, env)
                    .succeeded()) {
                // A rerun of a commit force-pushed away since, or one no branch has yet: servers hand it out by id.
                ctx.log().line("No branch of the clone has " + revision + "; fetching it by its id.");
                StepResult byId = git(ctx, List.of("git", "fetch", "--force", "origin", revision), target, env);
                if (!byId.succeeded()) {
                    return byId;
                }
            }
            checkout = pipeline.branch() != null
                    ? List.of("git", "checkout", "--force", "-B", pipeline.branch(), revision)
                    : List.of("git", "checkout", "--force", "--detach", revision);
        }
        StepResult checkedOut = git(ctx, checkout, target, env);
        if (!checkedOut.succeeded()) {
            return checkedOut;
        }
        return git(ctx, List.of("git", "--no-pager", "log", "-1", "--format=HEAD is now at %h %s"), target, env);
    }

    /** Echoes {@code command} into the output, then runs it there. */
    private static StepResult git(StepContext ctx, List<String> command, Path dir, Map<String, String> env)
            throws IOException, InterruptedException {
        ctx.log().line("$ " + String.join(" ", command));
        ProcessRun git = ProcessRun.start(ctx.executor(), command, dir, env, ctx.log());
        return git.await(ctx.control(), RunStep.DEFAULT_NO_OUTPUT_TIMEOUT, ctx.settings().killGrace(), ctx.log());
    }

    private static boolean isEmpty(Path dir) throws IOException {
        try (Stream<Path> entries = Files.list(dir)) {
            return entries.findAny().isEmpty();
        }
    }
}
