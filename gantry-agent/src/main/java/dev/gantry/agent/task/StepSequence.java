package dev.gantry.agent.task;

import dev.gantry.agent.executor.SandboxException;
import dev.gantry.agent.protocol.LeaseLostException;
import dev.gantry.agent.protocol.ProtocolException;
import dev.gantry.agent.protocol.StepReport;
import dev.gantry.agent.protocol.StepStatus;
import dev.gantry.agent.protocol.TaskOutcome;
import dev.gantry.config.plan.Step;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs a job's steps in order, honouring {@code when}: after a failed step, {@code on_success} steps are skipped and
 * {@code on_fail} ones run; {@code always} steps always run, except once the task is canceled, when every remaining
 * step is skipped. Each step writes a header line ({@code ==> NAME}) into the output and is reported
 * {@code running} at its start and with its end status at its end. Background steps keep running until the other
 * steps are done and are then killed. Used by the task's one thread.
 */
final class StepSequence {
    private final StepContext ctx;
    private final StepReports reports;
    private final List<Background> background = new ArrayList<>();

    private record Background(int index, String name, ProcessRun process, long offset, Instant started) {
    }

    StepSequence(StepContext ctx, StepReports reports) {
        this.ctx = ctx;
        this.reports = reports;
    }

    /**
     * Runs every step and says how the task went.
     *
     * @throws LeaseLostException if the lease was lost: nothing more may be sent
     */
    TaskOutcome run(List<Step> steps) throws InterruptedException {
        boolean failed = false;
        for (int i = 0; i < steps.size(); i++) {
            Step step = steps.get(i);
            if (ctx.control().silent()) {
                throw new LeaseLostException(ctx.task(), "the task was stopped");
            }
            boolean runs = !ctx.control().stopped() && switch (step.when()) {
                case ON_SUCCESS -> !failed;
                case ON_FAIL -> failed;
                case ALWAYS -> true;
            };
            if (!runs) {
                Instant now = Instant.now();
                report(i, new StepReport(step.name(), StepStatus.SKIPPED, null, ctx.log().length(), now, now));
                continue;
            }
            long offset = ctx.log().length();
            Instant started = Instant.now();
            ctx.log().line("==> " + step.name());
            report(i, new StepReport(step.name(), StepStatus.RUNNING, null, offset, started, null));
            if (step instanceof Step.Run run && run.background()) {
                StepResult start = startBackground(run, i, offset, started);
                if (start != null) {
                    report(i, new StepReport(step.name(), start.status(), null, offset, started, Instant.now()));
                    failed = true;
                }
                continue;
            }
            StepResult result = execute(step, i);
            report(i, new StepReport(step.name(), result.status(), result.exitCode(), offset, started, Instant.now()));
            failed |= result.status() == StepStatus.FAILED;
            if (!failed && ctx.sandbox().halted()) {
                ctx.log().line("The job was halted by `circleci step halt`: its other steps are skipped.");
                skipFrom(steps, i + 1);
                break;
            }
        }
        failed |= finishBackground();
        if (ctx.control().silent()) {
            throw new LeaseLostException(ctx.task(), "the task was stopped");
        }
        if (ctx.control().stopped()) {
            return TaskOutcome.CANCELED;
        }
        return failed ? TaskOutcome.FAILED : TaskOutcome.SUCCESS;
    }

    private void skipFrom(List<Step> steps, int from) throws InterruptedException {
        for (int k = from; k < steps.size(); k++) {
            Instant now = Instant.now();
            report(k, new StepReport(steps.get(k).name(), StepStatus.SKIPPED, null, ctx.log().length(), now, now));
        }
    }

    /** Starts a background step; null when it started, else the failure. */
    private StepResult startBackground(Step.Run run, int index, long offset, Instant started) {
        try {
            background.add(new Background(index, run.name(), RunStep.start(ctx, run, index), offset, started));
            return null;
        } catch (IOException | UncheckedIOException e) {
            ctx.log().line("The step could not start: " + e.getMessage());
            return StepResult.FAILED;
        }
    }

    /**
     * Kills the background steps still running and reports each: canceled if it was still running at the end of
     * the job (that does not fail the job), else by its exit code. True if one exited with a failure.
     */
    private boolean finishBackground() throws InterruptedException {
        boolean failed = false;
        for (Background b : background) {
            StepResult result;
            if (b.process().alive()) {
                b.process().kill(ctx.settings().killGrace());
                result = new StepResult(StepStatus.CANCELED, null);
            } else {
                result = StepResult.exited(b.process().exitCode());
                failed |= !result.succeeded();
            }
            if (!ctx.control().silent()) {
                report(b.index(), new StepReport(b.name(), result.status(), result.exitCode(), b.offset(), b.started(),
                        Instant.now()));
            }
        }
        return failed;
    }

    private StepResult execute(Step step, int index) throws InterruptedException {
        try {
            return switch (step) {
                case Step.Run run -> RunStep.run(ctx, run, index);
                case Step.Checkout checkout -> CheckoutStep.run(ctx, checkout);
                case Step.SaveCache save -> CacheSteps.save(ctx, save);
                case Step.RestoreCache restore -> CacheSteps.restore(ctx, restore);
                case Step.PersistToWorkspace persist -> WorkspaceSteps.persist(ctx, persist);
                case Step.AttachWorkspace attach -> WorkspaceSteps.attach(ctx, attach);
                case Step.StoreArtifacts artifacts -> ArtifactStep.run(ctx, artifacts);
                case Step.StoreTestResults results -> TestResultsStep.run(ctx, results);
                case Step.SetupRemoteDocker s -> remoteDocker();
                case Step.AddSshKeys s -> unsupported(s);
            };
        } catch (IOException | UncheckedIOException | ProtocolException | IllegalArgumentException e) {
            ctx.log().line("The step failed: " + e.getMessage());
            return StepResult.FAILED;
        }
    }

    /** {@code setup_remote_docker}: the job's own Docker engine, which the later steps reach at DOCKER_HOST. */
    private StepResult remoteDocker() throws InterruptedException {
        try {
            String host = ctx.sandbox().remoteDocker(ctx.log()::line);
            ctx.environment().put("DOCKER_HOST", host); // the environment every later step starts from
            ctx.log().line("DOCKER_HOST=" + host);
            return StepResult.SUCCESS;
        } catch (SandboxException e) {
            ctx.log().line("Cannot set up remote Docker: " + e.getMessage());
            return StepResult.FAILED;
        }
    }

    private StepResult unsupported(Step step) {
        ctx.log().line("This agent does not support " + step.kind() + " yet; the step does nothing.");
        return StepResult.SUCCESS;
    }

    private void report(int index, StepReport report) throws InterruptedException {
        reports.report(index, report);
    }
}
