package dev.gantry.agent.executor;

import java.io.InputStream;
import java.time.Duration;

/**
 * One process a step started in a sandbox: a host process, or a command executed in the primary container. Its
 * stdout and stderr come merged through {@link #output}, which ends when the process and whatever it left holding
 * the output have closed it. Used by one step thread; {@link #kill} may be called while another thread reads the
 * output.
 */
public interface StepProcess {

    /** Stdout and stderr, merged. */
    InputStream output();

    /** Waits at most {@code timeout} for the process to exit; true if it has. */
    boolean waitFor(Duration timeout) throws InterruptedException;

    /** The exit code, or null while it runs. */
    Integer exitCode();

    /** Kills the process and everything it started: TERM, then KILL after {@code grace}; returns once it exited. */
    void kill(Duration grace) throws InterruptedException;
}
