package dev.gantry.agent.task;

import dev.gantry.agent.protocol.Assignment;
import dev.gantry.config.plan.Step;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * {@code checkout}: clones the project's {@code vcs_url} into the working directory (or {@code path}) and checks out
 * the pipeline's revision, on a local branch of the pipeline's branch name when there is one
 * ({@code git checkout -B BRANCH SHA}, as CircleCI does), detached otherwise. A directory that already holds a
 * repository is fetched instead of cloned. Each git command is echoed into the output before it runs.
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
        List<List<String>> commands = new ArrayList<>();
        if (Files.isDirectory(target.resolve(".git"))) {
            ctx.log().line("Using the existing repository in " + target);
            commands.add(List.of("git", "fetch", "--force", "--tags", "origin"));
        } else if (!isEmpty(target)) {
            ctx.log().line("Directory " + target + " is not empty and not a git repository: cannot check out into it.");
            return StepResult.FAILED;
        } else {
            commands.add(List.of("git", "clone", "--no-checkout", project.vcsUrl(), "."));
        }
        String revision = pipeline.revision();
        if (revision == null || revision.isBlank()) {
            commands.add(List.of("git", "checkout", pipeline.branch() == null ? "HEAD" : pipeline.branch()));
        } else if (pipeline.branch() != null) {
            commands.add(List.of("git", "checkout", "--force", "-B", pipeline.branch(), revision));
        } else {
            commands.add(List.of("git", "checkout", "--force", "--detach", revision));
        }
        commands.add(List.of("git", "--no-pager", "log", "-1", "--format=HEAD is now at %h %s"));
        for (List<String> command : commands) {
            ctx.log().line("$ " + String.join(" ", command));
            ProcessRun git = ProcessRun.start(ctx.executor(), command, target, env, ctx.log());
            StepResult result = git.await(ctx.control(), RunStep.DEFAULT_NO_OUTPUT_TIMEOUT,
                    ctx.settings().killGrace(), ctx.log());
            if (!result.succeeded()) {
                return result;
            }
        }
        return StepResult.SUCCESS;
    }

    private static boolean isEmpty(Path dir) throws IOException {
        try (Stream<Path> entries = Files.list(dir)) {
            return entries.findAny().isEmpty();
        }
    }
}
