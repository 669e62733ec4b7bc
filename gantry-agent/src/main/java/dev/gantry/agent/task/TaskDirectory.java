package dev.gantry.agent.task;

import dev.gantry.agent.protocol.TaskRef;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A task's own directory under the agent's work directory, removed when the task ends: {@code home/} is the task's
 * {@code HOME} (so {@code ~/.npm} and friends are per task and the agent's real home is never touched),
 * {@code tmp/} holds archives in transit, {@code output.log} the node's output. Not thread-safe for creation and
 * removal; {@link #expand} is.
 */
final class TaskDirectory implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TaskDirectory.class);

    private final Path root;
    private final Path home;
    private final Path tmp;

    private TaskDirectory(Path root) throws IOException {
        this.root = root;
        this.home = Files.createDirectory(root.resolve("home"));
        this.tmp = Files.createDirectory(root.resolve("tmp"));
    }

    /** A fresh directory for {@code task} under {@code workDir}, which is created if missing. */
    static TaskDirectory create(Path workDir, TaskRef task) throws IOException {
        Files.createDirectories(workDir);
        String prefix = "task-" + task.jobId().replaceAll("[^A-Za-z0-9-]", "").replaceAll("^(.{8}).*", "$1") + "-"
                + task.nodeIndex() + "-";
        return new TaskDirectory(Files.createTempDirectory(workDir.toAbsolutePath(), prefix).toRealPath());
    }

    Path root() {
        return root;
    }

    Path home() {
        return home;
    }

    Path tmp() {
        return tmp;
    }

    Path outputFile() {
        return root.resolve("output.log");
    }

    /**
     * A config path as CircleCI reads it: {@code ~} and {@code ~/x} are in the task's home, absolute paths stay as
     * they are, anything else is relative to {@code base} (the working directory, for most steps).
     */
    Path expand(String path, Path base) {
        if (path.equals("~")) {
            return home;
        }
        if (path.startsWith("~/")) {
            return home.resolve(path.substring(2)).normalize();
        }
        Path p = Path.of(path);
        return p.isAbsolute() ? p.normalize() : base.resolve(p).normalize();
    }

    /** Removes everything, making read-only directories (Go's module cache, for one) writable first. */
    @Override
    public void close() {
        try {
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                    dir.toFile().setWritable(true, true);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.deleteIfExists(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path dir, IOException failure) throws IOException {
                    Files.deleteIfExists(dir);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (AccessDeniedException e) {
            LOG.warn("could not remove all of task directory {}: access denied to {}", root, e.getFile());
        } catch (IOException e) {
            LOG.warn("could not remove task directory {}: {}", root, e.toString());
        }
    }
}
