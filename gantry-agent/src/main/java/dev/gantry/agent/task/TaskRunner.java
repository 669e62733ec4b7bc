package dev.gantry.agent.task;

import dev.gantry.agent.executor.HostShellExecutor;
import dev.gantry.agent.executor.Sandbox;
import dev.gantry.agent.executor.SandboxException;
import dev.gantry.agent.executor.SandboxRequest;
import dev.gantry.agent.protocol.AgentServer;
import dev.gantry.agent.protocol.Assignment;
import dev.gantry.agent.protocol.LeaseLostException;
import dev.gantry.agent.protocol.ServerUnavailableException;
import dev.gantry.agent.protocol.TaskOutcome;
import dev.gantry.agent.protocol.TaskRef;
import dev.gantry.agent.protocol.TestTiming;
import dev.gantry.config.plan.PlanJob;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one claimed task from start to end: makes its directory, starts its heartbeats and output shipper, opens its
 * sandbox (the job's containers, or the host shell), runs the steps (the job's secrets in their environment and masked
 * in all it records and sends; a job the server refuses its secrets fails before any), closes the sandbox (killing
 * whatever the task left running, removing its containers), and completes the task: the completion, with the output
 * the server does not hold yet, is kept on disk first and delivered from there, now or once the server can take it
 * ({@link CompletionSpool}). A sandbox that cannot be made (an image that cannot be pulled) completes it as
 * {@code infrastructure_fail}. A server that cannot be reached for a while does not stop the task; if the lease is
 * lost on the way (409), it kills the task's processes and sends nothing more. The task's directory is removed in
 * every case. One instance per task, run on its own thread; {@link #abandon} may be called from any thread.
 */
public final class TaskRunner {
    private static final Logger LOG = LoggerFactory.getLogger(TaskRunner.class);
    /** The job's working directory when it names none, as in CircleCI. */
    static final String DEFAULT_WORKING_DIRECTORY = "~/project";
    /** The task's data for the {@code circleci} command, under the task's directory (test timings). */
    static final String TASK_DATA = "task-data";

    private final AgentServer server;
    private final CompletionSpool spool;
    private final Assignment assignment;
    private final Duration heartbeatInterval;
    private final TaskSettings settings;
    private final TaskControl control = new TaskControl();
    private final TaskRef task;
    private final SecretMasker masker;

    public TaskRunner(AgentServer server, CompletionSpool spool, Assignment assignment, Duration heartbeatInterval,
                      TaskSettings settings) {
        this.server = server;
        this.spool = spool;
        this.assignment = assignment;
        this.heartbeatInterval = heartbeatInterval;
        this.settings = settings;
        this.task = assignment.ref();
        List<String> secrets = new ArrayList<>(assignment.secrets().values());
        secrets.addAll(CheckoutStep.credentials(assignment.project().vcsUrl())); // git may print its URL
        this.masker = SecretMasker.of(secrets);
    }

    /** Runs the task; the outcome it was completed with, or empty if the lease was lost and it was not. */
    public Optional<TaskOutcome> run() throws IOException, InterruptedException {
        try (TaskDirectory dir = TaskDirectory.create(settings.workDir(), task);
             OutputLog log = new OutputLog(dir.outputFile(), masker)) {
            OutputShipper shipper = new OutputShipper(server, task, log, control, settings.flushInterval());
            Heartbeats heartbeats = new Heartbeats(server, task, control, heartbeatInterval);
            StepReports reports = new StepReports(server, task);
            shipper.start();
            heartbeats.start();
            try (Sandbox agentSide = HostShellExecutor.agentSide(dir.root(), settings.hostEnvironment(),
                    settings.killGrace())) {
                if (assignment.secretsError() != null) {
                    // the server refuses the job a context it names: it must not run, not even without them
                    log.line("Cannot run the job: " + assignment.secretsError());
                    return finish(shipper, reports, dir, TaskOutcome.FAILED, assignment.secretsError());
                }
                PlanJob job;
                try {
                    job = assignment.planJob();
                } catch (IllegalArgumentException e) {
                    log.line("Cannot read the job's definition: " + e.getMessage());
                    return finish(shipper, reports, dir, TaskOutcome.FAILED, "the agent cannot read the job: "
                            + e.getMessage());
                }
                writeTimings(dir.root().resolve(TASK_DATA));
                TaskOutcome outcome;
                try (Sandbox sandbox = settings.executor().open(request(job, dir), log::line)) {
                    sandbox.describe().forEach(log::line);
                    StepContext ctx = context(job, dir, sandbox, agentSide, log);
                    outcome = new StepSequence(ctx, reports).run(job.steps());
                } catch (SandboxException e) {
                    log.line("Cannot run the job: " + e.getMessage());
                    return finish(shipper, reports, dir, TaskOutcome.INFRASTRUCTURE_FAIL, e.getMessage());
                }
                // the sandbox is closed: once the server hears the task ended, nothing of it may still run
                return finish(shipper, reports, dir, outcome, null);
            } catch (LeaseLostException | ServerUnavailableException e) {
                // 409, or a call a step needed that the server did not answer for OUTAGE_PATIENCE
                control.leaseLost();
                LOG.warn("gave up task {}: {}", task, e.getMessage());
                return Optional.empty();
            } finally {
                heartbeats.stop();
                shipper.stop();
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

    /**
     * Writes the job's test timings from its latest successful run where {@code circleci tests split} reads them
     * ({@code timings.tsv}: file, classname, name and seconds, tab-separated); the file is empty before such a run.
     */
    private void writeTimings(Path taskData) throws IOException, InterruptedException {
        StringBuilder tsv = new StringBuilder();
        for (TestTiming t : server.timings(task)) {
            tsv.append(field(t.file())).append('\t').append(field(t.classname())).append('\t')
                    .append(field(t.name())).append('\t').append(t.runTime()).append('\n');
        }
        Files.createDirectories(taskData);
        Files.writeString(taskData.resolve("timings.tsv"), tsv);
    }

    private static String field(String value) {
        return value == null ? "" : value.replaceAll("[\t\r\n]", " ");
    }

    private SandboxRequest request(PlanJob job, TaskDirectory dir) {
        // an image's auth names its password as $VAR, most often a project's or a context's variable
        Map<String, String> variables = new LinkedHashMap<>(assignment.secrets());
        variables.putAll(job.environment());
        return new SandboxRequest(TaskDirectory.name(task), dir.root(), job.executor(), assignment.job().cpu(),
                assignment.job().memoryMb(), settings.hostEnvironment(), variables);
    }

    private StepContext context(PlanJob job, TaskDirectory dir, Sandbox sandbox, Sandbox agentSide, OutputLog log) {
        String configured = job.workingDirectory() == null ? DEFAULT_WORKING_DIRECTORY : job.workingDirectory();
        Path workingDir = StepContext.expand(configured, sandbox.home(), sandbox.home());
        Map<String, String> env = CircleEnvironment.build(assignment, job, sandbox.home(), workingDir,
                sandbox.bashEnv(), settings.server(), sandbox.baseEnvironment());
        return new StepContext(task, assignment, job, dir, sandbox, agentSide, workingDir, env, log, masker, server,
                control, settings);
    }

    /**
     * Completes the task, the completion carrying the step ends and output not sent yet: kept on disk first, then
     * delivered; one the server cannot take now stays kept and is delivered later ({@link CompletionSpool}).
     */
    private Optional<TaskOutcome> finish(OutputShipper shipper, StepReports reports, TaskDirectory dir,
                                         TaskOutcome outcome, String message) throws IOException, InterruptedException {
        if (control.silent()) {
            return Optional.empty();
        }
        shipper.stop();
        CompletionSpool.Kept kept = spool.keep(task, server.credential(), outcome, masker.mask(message),
                reports.takeEnded(), dir.outputFile(), shipper.acknowledged());
        switch (spool.deliver(kept, server)) {
            case REFUSED -> {
                control.leaseLost();
                return Optional.empty();
            }
            case PENDING -> {
                LOG.warn("task {} ({} #{}) {}; the server cannot take its result now: kept in {} and sent once it "
                        + "can", task, assignment.job().name(), assignment.job().number(), outcome.word(),
                        CompletionSpool.DIRECTORY);
                spool.wakeUp();
            }
            case DELIVERED, SUPERSEDED -> LOG.info("task {} ({} #{}) {}", task, assignment.job().name(),
                    assignment.job().number(), outcome.word());
        }
        return Optional.of(outcome);
    }
}
