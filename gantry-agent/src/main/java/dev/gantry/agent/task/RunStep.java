package dev.gantry.agent.task;

import dev.gantry.config.plan.Step;
import java.io.IOException;
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
        String shell = step.shell() != null ? step.shell() : ctx.job().shell();
        List<String> command;
        if (shell == null || shell.isBlank()) {
            command = List.of("bash", "-eo", "pipefail", "-c", step.command());
        } else {
            String script = step.command().endsWith("\n") ? step.command() : step.command() + "\n";
            command = new ArrayList<>(Arrays.asList(shell.strip().split("\\s+")));
            command.add(ctx.sandbox().share("step-" + index + ".sh", script).toString());
        }
        return ProcessRun.start(ctx.sandbox(), command, directory,
                CircleEnvironment.withStep(ctx.environment(), step.environment()), ctx.log());
    }
}
