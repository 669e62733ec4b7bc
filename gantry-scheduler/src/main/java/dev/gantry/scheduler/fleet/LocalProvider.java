package dev.gantry.scheduler.fleet;

import dev.gantry.scheduler.InstanceType;
import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Instances as processes on this machine: each launch starts the command the {@link Command} factory gives for the
 * instance (for {@code gantry up}, an agent with the type's capacity and the instance id as its name), with its
 * output in {@code <logDir>/<instanceId>.log}. An optional limit per type answers "insufficient capacity" once that
 * many of the type run, so an operator or a test can declare a type unavailable (limit 0).
 *
 * <p>Each running instance has a pid file, {@code <pidDir>/<instanceId>.pid}, with its pid, its start time, cluster
 * and type, removed once the process has exited. A server killed with SIGKILL cannot remove them: the next provider on
 * the same directory reports the processes still running as {@link #leftBehind}, and a pid that now belongs to another
 * process (its start time differs) is left alone.
 *
 * <p>{@link #terminate} sends TERM to the process and its descendants and returns at once; whatever still runs
 * after the grace period gets KILL. {@link #close} terminates everything and waits. Thread-safe.
 */
public final class LocalProvider implements FleetProvider, AutoCloseable {
    /** How long a terminated process has to exit after TERM before it is killed. */
    public static final Duration DEFAULT_GRACE = Duration.ofSeconds(10);

    /** The command line of an instance, e.g. {@code gantry agent --cpu N --memory GB --name <instanceId>}. */
    @FunctionalInterface
    public interface Command {
        List<String> argv(String instanceId, InstanceType type);
    }

    private record Started(String type, ProcessHandle process) {
    }

    private final Command command;
    private final Path logDir;
    private final Path pidDir;
    private final Duration grace;
    private final Map<String, Started> processes = new LinkedHashMap<>();
    private final Map<String, Integer> limits = new HashMap<>();
    private final Map<String, CompletableFuture<Void>> stopping = new HashMap<>();

    /**
     * @param logDir where each instance's output goes
     * @param pidDir where each running instance's pid file is; keep it for the life of the installation (a server's
     *               home), so that a restarted server finds what a killed one left
     */
    public LocalProvider(Command command, Path logDir, Path pidDir, Duration grace) {
        this.command = command;
        this.logDir = logDir;
        this.pidDir = pidDir;
        this.grace = grace;
    }

    /** At most {@code limit} processes of {@code type} at once from now on; 0 makes the type unavailable. */
    public synchronized void setLimit(String type, int limit) {
        if (limit < 0) {
            throw new IllegalArgumentException("a limit cannot be negative: " + limit);
        }
        limits.put(type, limit);
    }

    public synchronized void clearLimit(String type) {
        limits.remove(type);
    }

    @Override
    public synchronized LaunchResult launch(String cluster, InstanceType type, String instanceId) {
        if (processes.containsKey(instanceId)) {
            return new LaunchResult.Failed("instance " + instanceId + " is already running");
        }
        Integer limit = limits.get(type.name());
        long alive = processes.values().stream()
                .filter(s -> s.type().equals(type.name()) && s.process().isAlive()).count();
        if (limit != null && alive >= limit) {
            return new LaunchResult.InsufficientCapacity("this machine runs " + alive + " of " + type.name()
                    + ", its limit is " + limit);
        }
        List<String> argv = command.argv(instanceId, type);
        Process p;
        try {
            Files.createDirectories(logDir);
            Files.createDirectories(pidDir);
            Path log = logDir.resolve(instanceId + ".log");
            p = new ProcessBuilder(argv).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        } catch (IOException e) {
            return new LaunchResult.Failed("could not start " + argv + ": " + e.getMessage());
        }
        Path pidFile = pidFile(instanceId);
        try {
            PidFile.of(p.toHandle(), cluster, type.name()).write(pidFile);
        } catch (IOException e) {
            // Without its pid file a restarted server could not find it: better no instance than an untracked one.
            p.destroyForcibly();
            return new LaunchResult.Failed("could not write " + pidFile + ": " + e.getMessage());
        }
        track(instanceId, type.name(), p.toHandle());
        return new LaunchResult.Launched(Optional.empty());
    }

    /**
     * The instances a previous provider on this pid directory started that still run (the same pid and start time),
     * now this provider's to {@link #terminate}. Pid files of processes that are gone are removed.
     */
    @Override
    public synchronized List<LeftBehind> leftBehind() {
        List<LeftBehind> found = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(pidDir, "*.pid")) {
            for (Path file : files) {
                String id = file.getFileName().toString().replaceFirst("\\.pid$", "");
                if (processes.containsKey(id)) {
                    continue;
                }
                Optional<PidFile> pid = PidFile.read(file);
                Optional<ProcessHandle> running = pid.flatMap(PidFile::process);
                if (running.isEmpty()) {
                    deleteQuietly(file);
                    continue;
                }
                track(id, pid.get().type(), running.get());
                found.add(new LeftBehind(id, pid.get().cluster(), pid.get().type()));
            }
        } catch (NoSuchFileException e) {
            return List.of(); // no server ever launched here
        } catch (IOException e) {
            // Best effort: what could be read is reported; the rest exits by itself once its server is gone.
        }
        return found;
    }

    @Override
    public synchronized void terminate(String instanceId) {
        stop(instanceId);
    }

    /** The process of {@code instanceId}, while this provider has it. */
    public synchronized Optional<ProcessHandle> process(String instanceId) {
        return Optional.ofNullable(processes.get(instanceId)).map(Started::process);
    }

    /**
     * Completes once the instance and its descendants are gone, after a {@link #terminate}; an already completed
     * future for an id that was never terminated.
     */
    public synchronized CompletableFuture<Void> stopped(String instanceId) {
        return stopping.getOrDefault(instanceId, CompletableFuture.completedFuture(null));
    }

    /** Terminates every instance and waits for them, at most the grace period and a little more. */
    @Override
    public void close() {
        List<CompletableFuture<Void>> all;
        synchronized (this) {
            all = List.copyOf(processes.keySet()).stream().map(this::stop).toList();
        }
        try {
            CompletableFuture.allOf(all.toArray(CompletableFuture[]::new))
                    .get(grace.toMillis() + 5_000, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            // Best effort: every process has been sent KILL by now.
        }
    }

    private synchronized void forget(String instanceId, CompletableFuture<Void> done) {
        stopping.remove(instanceId, done);
    }

    private void track(String instanceId, String type, ProcessHandle process) {
        processes.put(instanceId, new Started(type, process));
        Path pidFile = pidFile(instanceId);
        process.onExit().thenRun(() -> deleteQuietly(pidFile));
    }

    private Path pidFile(String instanceId) {
        return pidDir.resolve(instanceId + ".pid");
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            // A stale pid file is checked against the process's start time before anything is done with it.
        }
    }

    private CompletableFuture<Void> stop(String instanceId) {
        Started s = processes.remove(instanceId);
        if (s == null) {
            return stopped(instanceId);
        }
        // Descendants are listed before TERM: once the parent exits they are re-parented and out of reach.
        List<ProcessHandle> tree = new ArrayList<>(s.process().descendants().toList());
        tree.addFirst(s.process());
        tree.forEach(ProcessHandle::destroy);
        CompletableFuture<?>[] exits = tree.stream().map(ProcessHandle::onExit).toArray(CompletableFuture[]::new);
        CompletableFuture<Void> done = CompletableFuture.allOf(exits)
                .completeOnTimeout(null, grace.toMillis(), TimeUnit.MILLISECONDS)
                .thenCompose(ignored -> {
                    tree.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
                    return CompletableFuture.allOf(tree.stream().map(ProcessHandle::onExit)
                            .toArray(CompletableFuture[]::new));
                });
        stopping.put(instanceId, done);
        done.thenRun(() -> forget(instanceId, done));
        return done;
    }

    /** What a pid file holds: enough to find the process again and to tell it from a later one with the same pid. */
    private record PidFile(long pid, Instant started, String cluster, String type) {
        static PidFile of(ProcessHandle process, String cluster, String type) throws IOException {
            Optional<Instant> started = process.info().startInstant();
            if (started.isEmpty()) {
                // Without it a reused pid could not be told apart from this process.
                throw new IOException("the start time of process " + process.pid() + " is unknown");
            }
            return new PidFile(process.pid(), started.get(), cluster, type);
        }

        static Optional<PidFile> read(Path file) {
            Properties p = new Properties();
            try (Reader in = Files.newBufferedReader(file)) {
                p.load(in);
                return Optional.of(new PidFile(Long.parseLong(p.getProperty("pid")),
                        Instant.parse(p.getProperty("started")), p.getProperty("cluster"), p.getProperty("type")));
            } catch (IOException | RuntimeException e) {
                return Optional.empty(); // unreadable or half written: nothing to go by
            }
        }

        void write(Path file) throws IOException {
            Properties p = new Properties();
            p.setProperty("pid", Long.toString(pid));
            p.setProperty("started", started.toString());
            p.setProperty("cluster", cluster);
            p.setProperty("type", type);
            Path partial = file.resolveSibling(file.getFileName() + ".partial");
            try (Writer out = Files.newBufferedWriter(partial)) {
                p.store(out, "a local agent; removed when it exits");
            }
            Files.move(partial, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }

        /** The process, while it runs and is the one started then: a pid may have been given to another since. */
        Optional<ProcessHandle> process() {
            return ProcessHandle.of(pid).filter(h -> h.info().startInstant().equals(Optional.of(started)));
        }
    }
}
