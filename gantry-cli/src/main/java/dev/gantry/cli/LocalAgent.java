package dev.gantry.cli;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A build agent that {@code gantry up} runs as a child process of its own (the same jar, {@code gantry agent}), so
 * that the jobs it runs, and a crash of one, stay apart from the server. Its output goes to a log file under
 * {@code $GANTRY_HOME/logs}.
 */
final class LocalAgent implements AutoCloseable {
    static final String NAME = "local-1";

    private final Process process;
    private final Path log;

    private LocalAgent(Process process, Path log) {
        this.process = process;
        this.log = log;
    }

    static LocalAgent start(URI server, Path agentTokenFile, Path home, int cpu, int memoryGb) throws IOException {
        Path logs = Files.createDirectories(home.resolve("logs"));
        Path log = logs.resolve("agent-" + NAME + ".log");
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = List.of(java, "-cp", System.getProperty("java.class.path"), Main.class.getName(),
                "agent", "--server", server.toString(), "--token-file", agentTokenFile.toString(),
                "--cpu", Integer.toString(cpu), "--memory", Integer.toString(memoryGb),
                "--name", NAME, "--work-dir", home.resolve("agent-work").toString());
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        return new LocalAgent(process, log);
    }

    Path log() {
        return log;
    }

    /** Stops the agent and whatever its jobs left running: TERM, then KILL after five seconds. */
    @Override
    public void close() {
        List<ProcessHandle> descendants = process.descendants().toList();
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        descendants.forEach(ProcessHandle::destroyForcibly);
    }
}
