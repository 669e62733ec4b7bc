package dev.gantry.scheduler.fleet;

import dev.gantry.scheduler.InstanceType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Instances as processes on this machine: each launch starts the command the {@link Command} factory gives for the
 * instance (for {@code gantry up}, an agent with the type's capacity and the instance id as its name), with its
 * output in {@code <logDir>/<instanceId>.log}. An optional limit per type answers "insufficient capacity" once that
 * many of the type run, so an operator or a test can declare a type unavailable (limit 0).
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

    private record Started(String type, Process process) {
    }

    private final Command command;
    private final Path logDir;
    private final Duration grace;
    private final Map<String, Started> processes = new LinkedHashMap<>();
    private final Map<String, Integer> limits = new HashMap<>();
    private final Map<String, CompletableFuture<Void>> stopping = new HashMap<>();

    public LocalProvider(Command command, Path logDir, Duration grace) {
        this.command = command;
        this.logDir = logDir;
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
        try {
            Files.createDirectories(logDir);
            Path log = logDir.resolve(instanceId + ".log");
            Process p = new ProcessBuilder(argv).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
            processes.put(instanceId, new Started(type.name(), p));
            return new LaunchResult.Launched(Optional.empty());
        } catch (IOException e) {
            return new LaunchResult.Failed("could not start " + argv + ": " + e.getMessage());
        }
    }

    @Override
    public synchronized void terminate(String instanceId) {
        stop(instanceId);
    }

    /** The process of {@code instanceId}, while this provider has it. */
    public synchronized Optional<ProcessHandle> process(String instanceId) {
        return Optional.ofNullable(processes.get(instanceId)).map(s -> s.process().toHandle());
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

    private CompletableFuture<Void> stop(String instanceId) {
        Started s = processes.remove(instanceId);
        if (s == null) {
            return stopped(instanceId);
        }
        // Descendants are listed before TERM: once the parent exits they are re-parented and out of reach.
        List<ProcessHandle> tree = new ArrayList<>(s.process().descendants().toList());
        tree.addFirst(s.process().toHandle());
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
}
