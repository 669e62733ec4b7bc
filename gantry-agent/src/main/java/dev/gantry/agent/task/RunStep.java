package dev.gantry.agent.task;

import dev.gantry.config.plan.Step;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A {@code run} step: {@code bash -eo pipefail -c COMMAND} by default; with a {@code shell} on the step or job, the
 * command is written to a script file and that shell runs it, as CircleCI does. Exit code 0 is success.
 */
final class RunStep {
    /** CircleCI's default {@code no_output_timeout}. */
    static final Duration DEFAULT_NO_OUTPUT_TIMEOUT = Duration.ofMinutes(10);

    private RunStep() {
    }

    static StepResult run(StepContext ctx, Step.Run step, int index) throws IOException, InterruptedException {
        ProcessRun process = start(ctx, step, index);
        Duration timeout = step.noOutputTimeout() == null ? DEFAULT_NO_OUTPUT_TIMEOUT : step.noOutputTimeout();
        return process.await(ctx.control(), timeout, ctx.settings().killGrace(), ctx.log());
    }

    /** Starts the step's process; a background step is left running and killed at the end of the task. */
    static ProcessRun start(StepContext ctx, Step.Run step, int index) throws IOException {
        Path directory = step.workingDirectory() == null ? ctx.workingDirectory() : ctx.path(step.workingDirectory());
        Files.createDirectories(directory);
        String shell = step.shell() != null ? step.shell() : ctx.job().shell();
        return ProcessRun.start(ctx.executor(), command(step.command(), shell, ctx.dir().tmp(), index), directory,
                CircleEnvironment.withStep(ctx.environment(), step.environment()), ctx.log());
    }

    /** The argument list for {@code command}: the default bash, or {@code shell}'s words and a script file. */
    static List<String> command(String command, String shell, Path scripts, int index) throws IOException {
        if (shell == null || shell.isBlank()) {
            return List.of("bash", "-eo", "pipefail", "-c", command);
        }
        Path script = scripts.resolve("step-" + index + ".sh");
        Files.writeString(script, command.endsWith("\n") ? command : command + "\n", StandardCharsets.UTF_8);
        List<String> argv = new ArrayList<>(Arrays.asList(shell.strip().split("\\s+")));
        argv.add(script.toString());
        return argv;
    }
}
