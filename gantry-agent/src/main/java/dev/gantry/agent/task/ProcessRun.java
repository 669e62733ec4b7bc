package dev.gantry.agent.task;

import dev.gantry.agent.executor.Sandbox;
import dev.gantry.agent.executor.StepProcess;
import dev.gantry.agent.protocol.StepStatus;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * One running process of a step: its merged output is pumped into the task's {@link OutputLog} (through a
 * {@link MaskedOutput} of its own, closed when the output ends) by a virtual thread, and {@link #await} watches it for
 * exit, cancellation and silence. The step ends when the process exits, even if a child it left behind still holds
 * the output pipe: the pump then gives up after {@link #DRAIN} and the child is killed at the end of the task. Used
 * by one step thread; the pump is internal.
 */
final class ProcessRun {
    /** How long output may keep arriving after the process exited before the step moves on. */
    private static final Duration DRAIN = Duration.ofSeconds(1);
    private static final Duration POLL = Duration.ofMillis(50);

    private final StepProcess process;
    private final MaskedOutput output;
    private final Thread pump;
    private volatile long lastOutputNanos = System.nanoTime();

    private ProcessRun(StepProcess process, OutputLog log) {
        this.process = process;
        this.output = log.output();
        this.pump = Thread.ofVirtual().name("pump").start(() -> pump(process.output()));
    }

    static ProcessRun start(Sandbox sandbox, List<String> command, Path directory, Map<String, String> environment,
                            OutputLog log) throws IOException {
        return new ProcessRun(sandbox.start(command, directory, environment), log);
    }

    /**
     * Waits for the process to exit. Kills its whole tree when the task is stopped (then the result is canceled) or
     * when it printed nothing for {@code noOutputTimeout} (then it failed, and the output says why).
     */
    StepResult await(TaskControl control, Duration noOutputTimeout, Duration killGrace, OutputLog log)
            throws InterruptedException {
        while (true) {
            if (process.waitFor(POLL)) {
                finishPump();
                return StepResult.exited(process.exitCode());
            }
            if (control.stopped()) {
                kill(killGrace);
                if (!control.silent()) {
                    log.line("");
                    log.line("Canceled: the step's processes were killed.");
                }
                return new StepResult(StepStatus.CANCELED, exitCode());
            }
            Duration silent = Duration.ofNanos(System.nanoTime() - lastOutputNanos);
            if (noOutputTimeout != null && silent.compareTo(noOutputTimeout) > 0) {
                kill(killGrace);
                log.line("");
                log.line("Too long with no output (exceeded " + Durations.words(noOutputTimeout)
                        + "): the step was killed.");
                return new StepResult(StepStatus.FAILED, exitCode());
            }
        }
    }

    /** Kills the process and all its descendants, and waits for the pump to finish or give up. */
    void kill(Duration grace) throws InterruptedException {
        process.kill(grace);
        finishPump();
    }

    boolean alive() throws InterruptedException {
        return !process.waitFor(Duration.ZERO);
    }

    Integer exitCode() {
        return process.exitCode();
    }

    private void finishPump() throws InterruptedException {
        if (!pump.join(DRAIN)) {
            output.close(); // a leftover child holds the pipe; its later output belongs to no step
        }
    }

    private void pump(InputStream in) {
        byte[] buffer = new byte[8192];
        try (in; output) {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                lastOutputNanos = System.nanoTime();
                output.write(buffer, 0, n);
            }
        } catch (IOException e) {
            // the stream closed under us: the process is gone
        }
    }
}
