package dev.gantry.agent.task;

import dev.gantry.agent.executor.Executor;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * What every task of one agent shares.
 *
 * @param workDir         where task directories are made
 * @param server          the server's base URL, for {@code CIRCLE_BUILD_URL}
 * @param executor        where steps run: the job's containers, or the host shell when the agent was told so
 * @param killGrace       how long a killed process has between TERM and KILL
 * @param flushInterval   how often new output is sent (at most 200 ms, so a line shows within a second)
 * @param hostEnvironment the agent's own environment, the base of a host-shell task's
 * @param resultWindow    how long a finished task's result is kept for a server that cannot take it now
 */
public record TaskSettings(Path workDir, String server, Executor executor, Duration killGrace, Duration flushInterval,
                           Map<String, String> hostEnvironment, Duration resultWindow) {
    public static final Duration DEFAULT_KILL_GRACE = Duration.ofSeconds(5);
    public static final Duration DEFAULT_FLUSH_INTERVAL = Duration.ofMillis(200);

    public TaskSettings {
        if (killGrace.isNegative() || !flushInterval.isPositive() || !resultWindow.isPositive()) {
            throw new IllegalArgumentException("killGrace must be >= 0, flushInterval and resultWindow > 0, got "
                    + killGrace + ", " + flushInterval + " and " + resultWindow);
        }
        hostEnvironment = Map.copyOf(hostEnvironment);
    }

    /** Settings with the default grace, flush interval and result window, running steps on {@code executor}. */
    public static TaskSettings defaults(Path workDir, String server, Executor executor,
                                        Map<String, String> hostEnvironment) {
        return new TaskSettings(workDir, server, executor, DEFAULT_KILL_GRACE, DEFAULT_FLUSH_INTERVAL,
                hostEnvironment, CompletionSpool.DEFAULT_WINDOW);
    }

    /** These settings with another result window. */
    public TaskSettings withResultWindow(Duration window) {
        return new TaskSettings(workDir, server, executor, killGrace, flushInterval, hostEnvironment, window);
    }
}
