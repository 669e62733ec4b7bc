package dev.gantry.agent.task;

import dev.gantry.agent.protocol.AgentServer;
import dev.gantry.agent.protocol.Assignment;
import dev.gantry.agent.protocol.Completion;
import dev.gantry.agent.protocol.LeaseLostException;
import dev.gantry.agent.protocol.OutputOffsetException;
import dev.gantry.agent.protocol.ServerUnavailableException;
import dev.gantry.agent.protocol.TaskOutcome;
import dev.gantry.agent.protocol.TaskRef;
import dev.gantry.config.plan.PlanJob;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one claimed task from start to end: makes its directory, starts its heartbeats and output shipper, runs the
 * steps, kills whatever the task left running, sends the rest of the output and completes the task. If the lease
 * is lost on the way (409, or the server unreachable past the lease timeout), it kills the task's processes and
 * sends nothing more. The task's directory is removed in every case. One instance per task, run on its own thread;
 * {@link #abandon} may be called from any thread.
 */
public final class TaskRunner {
    private static final Logger LOG = LoggerFactory.getLogger(TaskRunner.class);
    /** The job's working directory when it names none, as in CircleCI. */
    static final String DEFAULT_WORKING_DIRECTORY = "~/project";

    private final AgentServer server;
    private final Assignment assignment;
    private final Duration heartbeatInterval;
    private final TaskSettings settings;
    private final TaskControl control = new TaskControl();
    private final TaskRef task;

    public TaskRunner(AgentServer server, Assignment assignment, Duration heartbeatInterval, TaskSettings settings) {
        this.server = server;
        this.assignment = assignment;
        this.heartbeatInterval = heartbeatInterval;
        this.settings = settings;
        this.task = assignment.ref();
    }

    /** Runs the task; the outcome it was completed with, or empty if the lease was lost and it was not. */
    public Optional<TaskOutcome> run() throws IOException, InterruptedException {
        String marker = UUID.randomUUID().toString();
        // This thread started before any process of the task, so none of the task's leftovers is older.
        long startTicks = ProcessTree.threadStartTicks();
        boolean leftoversKilled = false;
        try (TaskDirectory dir = TaskDirectory.create(settings.workDir(), task);
             OutputLog log = new OutputLog(dir.outputFile())) {
            OutputShipper shipper = new OutputShipper(server, task, log, control, settings.flushInterval());
            Heartbeats heartbeats = new Heartbeats(server, task, control, heartbeatInterval);
            StepReports reports = new StepReports(server, task);
            shipper.start();
            heartbeats.start();
            try {
                settings.executor().describe(assignment.job().executor()).forEach(log::line);
                PlanJob job;
                try {
                    job = assignment.planJob();
                } catch (IllegalArgumentException e) {
                    log.line("Cannot read the job's definition: " + e.getMessage());
                    return finish(shipper, reports, TaskOutcome.FAILED, "the agent cannot read the job: "
                            + e.getMessage());
                }
                StepContext ctx = context(job, dir, log, marker);
                TaskOutcome outcome = new StepSequence(ctx, reports).run(job.steps());
                // Before completing: once the server hears the task ended, nothing of it may still run.
                ProcessTree.killMarked(marker, startTicks, settings.killGrace());
                leftoversKilled = true;
                return finish(shipper, reports, outcome, null);
            } catch (LeaseLostException | ServerUnavailableException e) {
                control.leaseLost();
                LOG.warn("gave up task {}: {}", task, e.getMessage());
                return Optional.empty();
            } finally {
                heartbeats.stop();
                shipper.stop();
                if (!leftoversKilled) {
                    // Each scan reads the stat of every process on the machine: one kill per task is enough.
                    ProcessTree.killMarked(marker, startTicks, settings.killGrace());
                }
            }
        }
    }

    /** Stops the task without reporting anything more (agent shutdown): its processes are killed shortly. */
    public void abandon() {
        control.leaseLost();
    }

    public TaskRef task() {
        return task;
    }

    private StepContext context(PlanJob job, TaskDirectory dir, OutputLog log, String marker) throws IOException {
        String configured = job.workingDirectory() == null ? DEFAULT_WORKING_DIRECTORY : job.workingDirectory();
        Path workingDir = dir.expand(configured, dir.home());
        Files.createDirectories(workingDir);
        Map<String, String> env = CircleEnvironment.build(assignment, job, dir.home(), workingDir, settings.server(),
                settings.hostEnvironment(), marker);
        return new StepContext(task, assignment, job, dir, workingDir, env, log, server, control, settings);
    }

    /** Completes the task, the completion carrying the step ends and output not sent yet. */
    private Optional<TaskOutcome> finish(OutputShipper shipper, StepReports reports, TaskOutcome outcome,
                                         String message) throws InterruptedException {
        if (control.silent()) {
            return Optional.empty();
        }
        OutputShipper.Unsent output = shipper.unsent(Completion.MAX_OUTPUT);
        Completion completion = new Completion(outcome, message, reports.takeEnded(), output.offset(),
                output.bytes());
        try {
            server.complete(task, completion);
        } catch (OutputOffsetException gap) {
            // The server holds less output than the agent thought: resend it through output calls, then complete.
            shipper.drain();
            server.complete(task, completion.withoutOutput(shipper.acknowledged()));
        }
        shipper.acknowledge(output.offset() + output.bytes().length);
        LOG.info("task {} ({} #{}) {}", task, assignment.job().name(), assignment.job().number(), outcome.word());
        return Optional.of(outcome);
    }
}
