package dev.gantry.agent.task;

import dev.gantry.agent.executor.Trees;
import dev.gantry.agent.protocol.TaskRef;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A task's own directory on the agent's host (mode 0700, so no other user of the host can look in), removed when
 * the task ends: {@code tmp/} holds archives in transit, {@code staging/} copies of files on their way out of or
 * into the sandbox, {@code output.log} (0600) the node's output; the executor keeps what it needs beside them. Not
 * thread-safe.
 */
final class TaskDirectory implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TaskDirectory.class);

    private final Path root;
    private final Path tmp;
    private final Path staging;

    private TaskDirectory(Path root) throws IOException {
        this.root = root;
        this.tmp = Files.createDirectory(root.resolve("tmp"));
        this.staging = Files.createDirectory(root.resolve("staging"));
    }

    /** A fresh directory for {@code task} under {@code workDir}, which is created if missing. */
    static TaskDirectory create(Path workDir, TaskRef task) throws IOException {
        Files.createDirectories(workDir);
        // createTempDirectory makes it 0700
        return new TaskDirectory(Files.createTempDirectory(workDir.toAbsolutePath(), name(task) + "-").toRealPath());
    }

    /** {@code job-<first 8 of the job id>-<node>}: names the task's directory and containers. */
    static String name(TaskRef task) {
        return "job-" + task.jobId().replaceAll("[^A-Za-z0-9-]", "").replaceAll("^(.{8}).*", "$1") + "-"
                + task.nodeIndex();
    }

    Path root() {
        return root;
    }

    Path tmp() {
        return tmp;
    }

    /** A new empty directory for one copy between the host and the sandbox. */
    Path newStaging() throws IOException {
        return Files.createTempDirectory(staging, "s");
    }

    Path outputFile() {
        return root.resolve("output.log");
    }

    @Override
    public void close() {
        try {
            Trees.delete(root);
        } catch (IOException e) {
            LOG.warn("could not remove task directory {}: {}", root, e.toString());
        }
    }
}
