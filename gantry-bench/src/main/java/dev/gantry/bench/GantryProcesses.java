package dev.gantry.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * What the suites that run Gantry as a user does need: {@code gantry ARGUMENTS} as a process of its own, from this
 * JVM's class path (the bench jar holds the whole CLI), free ports, and git repositories.
 */
public final class GantryProcesses {
    private GantryProcesses() {
    }

    /**
     * Starts {@code gantry ARGUMENTS} with {@code environment} added to this process's (less
     * {@code GANTRY_DATABASE_URL}, which is the caller's to give), its output and errors appended to {@code log}.
     */
    public static Process start(List<String> arguments, Map<String, String> environment, Path log)
            throws IOException {
        return start(List.of(), arguments, environment, log);
    }

    /** As {@link #start(List, Map, Path)}, with {@code jvmOptions} for the process's JVM. */
    public static Process start(List<String> jvmOptions, List<String> arguments, Map<String, String> environment,
                                Path log) throws IOException {
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java")));
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), "dev.gantry.cli.Main"));
        command.addAll(arguments);
        Files.createDirectories(log.getParent());
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        builder.environment().remove("GANTRY_DATABASE_URL");
        builder.environment().putAll(environment);
        return builder.start();
    }

    /** A port that was free on 127.0.0.1 a moment ago. */
    public static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Runs {@code git ARGS} in {@code dir} as a fixed author; throws with git's output if it fails. */
    public static void git(Path dir, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of("git", "-c", "user.name=bench", "-c",
                "user.email=bench@localhost"));
        command.addAll(List.of(args));
        try {
            Process git = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
            String output = new String(git.getInputStream().readAllBytes());
            if (git.waitFor() != 0) {
                throw new IOException("git " + String.join(" ", args) + " failed: " + output);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    /** Creates a repository in {@code dir} on branch main holding {@code config} as its CircleCI config. */
    public static void repository(Path dir, String config) throws IOException {
        Files.createDirectories(dir.resolve(".circleci"));
        Files.writeString(dir.resolve(".circleci/config.yml"), config);
        Files.writeString(dir.resolve("deps.txt"), "left-pad 1.3.0\n");
        git(dir, "init", "-q", "-b", "main");
        git(dir, "add", "-A");
        git(dir, "commit", "-q", "-m", "bench project");
    }

    /** SIGTERM, then SIGKILL after {@code graceSeconds}; waits for the end. */
    public static void stop(Process process, int graceSeconds) {
        process.destroy();
        try {
            if (!process.waitFor(graceSeconds, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(30, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
