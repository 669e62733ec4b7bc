package dev.gantry.agent.executor;

import dev.gantry.config.plan.Executor.Docker;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A task on the agent's host shell: processes are the agent's children, marked in their environment
 * ({@link ProcessTree#MARKER_VARIABLE}) so that whatever they leave running is found and killed when the task ends.
 * Files are the host's own, so {@link #read} returns the path itself and {@link #write} moves the tree into place.
 */
final class HostSandbox implements Sandbox {
    private static final File NO_INPUT = new File("/dev/null");

    private final Path home;
    private final SandboxRequest request;
    private final Duration killGrace;
    private final String marker = UUID.randomUUID().toString();
    // The task's thread started before any process of the task, so none of the task's leftovers is older.
    private final long startTicks = ProcessTree.threadStartTicks();

    HostSandbox(Path home, SandboxRequest request, Duration killGrace) {
        this.home = home;
        this.request = request;
        this.killGrace = killGrace;
    }

    @Override
    public Path home() {
        return home;
    }

    @Override
    public Map<String, String> baseEnvironment() {
        Map<String, String> env = new LinkedHashMap<>();
        request.hostEnvironment().forEach((name, value) -> {
            if (!name.startsWith("GANTRY_")) {
                env.put(name, value); // the agent's own settings, its token among them, never reach a build
            }
        });
        Path root = request.taskRoot();
        String path = env.getOrDefault("PATH", "/usr/local/bin:/usr/bin:/bin");
        env.put("PATH", path + ":" + root.resolve("bin"));
        env.put("CIRCLE_INTERNAL_TASK_DATA", root.resolve("task-data").toString());
        env.put("CIRCLE_INTERNAL_CONTROL_DIR", root.resolve("control").toString());
        return env;
    }

    @Override
    public StepProcess start(List<String> command, Path directory, Map<String, String> environment)
            throws IOException {
        Files.createDirectories(directory);
        ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(NO_INPUT));
        builder.environment().clear();
        builder.environment().putAll(environment);
        // set last: it is how leftover processes are found, so a job's own variable of that name cannot hide them
        builder.environment().put(ProcessTree.MARKER_VARIABLE, marker);
        return new HostProcess(builder.start());
    }

    @Override
    public Optional<Path> read(Path path, Path staging) {
        return Files.exists(path, LinkOption.NOFOLLOW_LINKS) ? Optional.of(path) : Optional.empty();
    }

    @Override
    public void write(Path tree, Path directory) throws IOException {
        Trees.moveInto(tree, directory);
    }

    @Override
    public Path share(String name, String content) throws IOException {
        Path dir = Files.createDirectories(request.taskRoot().resolve("shared"));
        return Files.writeString(dir.resolve(name), content, StandardCharsets.UTF_8);
    }

    @Override
    public String remoteDocker(Consumer<String> say) throws SandboxException {
        throw new SandboxException("setup_remote_docker needs the docker executor: this agent runs jobs on its host "
                + "shell (--executor shell), where the job uses whatever Docker the host has");
    }

    @Override
    public Path bashEnv() {
        return request.taskRoot().resolve("bash_env");
    }

    @Override
    public boolean halted() {
        return Files.exists(request.taskRoot().resolve("control").resolve("halt"));
    }

    @Override
    public List<String> describe() {
        Docker docker = request.docker();
        String asked = request.executor() == null ? "no executor"
                : request.executor().kind() + (docker == null ? "" : " image " + docker.images().get(0).image());
        return List.of("Executor: host shell (not isolated). The job asks for " + asked + "; this agent runs its "
                + "steps on its own host as its own user, so they can read what that user can.");
    }

    @Override
    public void close() {
        try {
            ProcessTree.killMarked(marker, startTicks, killGrace);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A child process of the agent; killing it kills its whole tree. */
    private record HostProcess(Process process) implements StepProcess {
        @Override
        public InputStream output() {
            return process.getInputStream();
        }

        @Override
        public boolean waitFor(Duration timeout) throws InterruptedException {
            return process.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS);
        }

        @Override
        public Integer exitCode() {
            return process.isAlive() ? null : process.exitValue();
        }

        @Override
        public void kill(Duration grace) throws InterruptedException {
            ProcessTree.kill(process.toHandle(), grace);
            process.waitFor();
        }
    }
}
