package dev.gantry.agent.task;

import dev.gantry.agent.protocol.Assignment;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Where a task's processes run. Steps start every process through this interface (shell commands, git), so a
 * container executor can later run them inside the job's image without the steps changing. Implementations are
 * thread-safe.
 */
public interface Executor {

    /** Lines for the top of the task's output that say where the steps run, given the job's recorded executor. */
    List<String> describe(Assignment.ExecutorImage recorded);

    /**
     * Starts {@code command} in {@code directory} with exactly {@code environment}, stdout and stderr merged into
     * the process's input stream, stdin empty.
     */
    Process start(List<String> command, Path directory, Map<String, String> environment) throws IOException;
}
