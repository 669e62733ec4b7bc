package dev.gantry.agent;

import dev.gantry.agent.protocol.AgentException;
import dev.gantry.agent.protocol.AgentInfo;
import dev.gantry.agent.protocol.AgentServer;
import dev.gantry.agent.protocol.Assignment;
import dev.gantry.agent.protocol.Registration;
import dev.gantry.agent.protocol.RetryPolicy;
import dev.gantry.agent.protocol.ServerUnavailableException;
import dev.gantry.agent.protocol.UnauthorizedException;
import dev.gantry.agent.protocol.UnknownAgentException;
import dev.gantry.agent.task.CompletionSpool;
import dev.gantry.agent.task.TaskRunner;
import dev.gantry.agent.task.TaskSettings;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent: registers, then long-polls for tasks that fit its free CPU and memory and runs each on its own
 * thread, so an agent with room runs several at once. See the package documentation for the flow.
 *
 * <p>{@link #run} blocks the calling thread until {@link #close}. Closing stops claiming at once and abandons running
 * tasks: their processes are killed and nothing more is sent, so their leases expire on the server and the jobs are
 * retried elsewhere. Results of tasks that finished but could not be delivered stay in the work directory's
 * {@link CompletionSpool}, which the next run delivers. {@link #close} may be called from any thread (a shutdown
 * hook).
 */
public final class Agent implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Agent.class);
    /** The agent's version, sent at registration. */
    public static final String VERSION = "0.1.0";
    /** A long poll that comes back empty sooner than this is a server not honouring it: back off instead of spinning. */
    private static final Duration MIN_EMPTY_POLL = Duration.ofSeconds(1);
    /** Waiting for a server that is down: retry forever, but no more often than this cap. */
    private static final RetryPolicy RECONNECT =
            new RetryPolicy(Duration.ofSeconds(1), Duration.ofSeconds(30), Duration.ZERO);

    private final AgentSettings settings;
    private final AgentServer server;
    private final TaskSettings taskSettings;
    private final Consumer<Registration> onRegistered;
    private final Capacity capacity;
    private final Set<TaskRunner> running = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;
    private volatile Thread loop;
    /** Finished tasks' results the server has not taken yet; made when the agent runs. */
    private volatile CompletionSpool spool;

    /** An agent; {@code onRegistered} is told each time it registers (once, unless the server forgets it). */
    public Agent(AgentSettings settings, AgentServer server, TaskSettings taskSettings,
                 Consumer<Registration> onRegistered) {
        this.settings = settings;
        this.server = server;
        this.taskSettings = taskSettings;
        this.onRegistered = onRegistered;
        this.capacity = new Capacity(settings.cpu(), settings.memoryMb());
    }

    /**
     * Registers and claims tasks until {@link #close}.
     *
     * @throws UnauthorizedException if the server refuses the token
     */
    public void run() throws InterruptedException, IOException {
        loop = Thread.currentThread();
        spool = new CompletionSpool(taskSettings.workDir(), taskSettings.resultWindow());
        int waiting = spool.size();
        if (waiting > 0) {
            LOG.warn("{} results of finished tasks wait in {} for the server; delivering them", waiting,
                    CompletionSpool.DIRECTORY);
        }
        spool.start(server);
        try {
            Registration registration = register();
            int failures = 0;
            while (!closed) {
                ResourceSizes.Size free = capacity.awaitRoom();
                long asked = System.nanoTime();
                try {
                    Optional<Assignment> claimed = server.claim(registration.id(), free.cpu(), free.memoryMb());
                    failures = 0;
                    if (claimed.isPresent()) {
                        start(claimed.get(), registration.heartbeatInterval());
                    } else if (Duration.ofNanos(System.nanoTime() - asked).compareTo(MIN_EMPTY_POLL) < 0) {
                        Thread.sleep(MIN_EMPTY_POLL);
                    }
                } catch (UnknownAgentException e) {
                    LOG.warn("{}; registering again", e.getMessage());
                    registration = register();
                } catch (UnauthorizedException e) {
                    throw e;
                } catch (AgentException e) {
                    Duration wait = RECONNECT.delay(failures++, null, ThreadLocalRandom.current());
                    LOG.warn("claim failed ({}); asking again in {} ms", e.getMessage(), wait.toMillis());
                    Thread.sleep(wait);
                }
            }
        } catch (InterruptedException e) {
            if (!closed) {
                throw e;
            }
        } finally {
            spool.close();
        }
    }

    /** Stops claiming and abandons running tasks (their leases expire on the server). Idempotent. */
    @Override
    public void close() {
        closed = true;
        running.forEach(TaskRunner::abandon);
        Thread t = loop;
        if (t != null) {
            t.interrupt();
        }
    }

    /** Waits until no task runs, at most {@code timeout}; true if none does. */
    public boolean awaitIdle(Duration timeout) throws InterruptedException {
        return capacity.awaitIdle(timeout);
    }

    /** How many tasks run now. */
    public int runningTasks() {
        return capacity.running();
    }

    private Registration register() throws InterruptedException {
        AgentInfo info = new AgentInfo(settings.name(), settings.cpu(), settings.memoryMb(), settings.diskGb(),
                settings.pool(), VERSION);
        // One key for every attempt: one that reached the server but whose answer was lost makes no second agent.
        String key = UUID.randomUUID().toString();
        for (int attempt = 0; ; attempt++) {
            try {
                Registration registration = server.register(info, key);
                onRegistered.accept(registration);
                return registration;
            } catch (ServerUnavailableException e) {
                Duration wait = RECONNECT.delay(attempt, null, ThreadLocalRandom.current());
                LOG.warn("cannot register with {} ({}); trying again in {} ms", settings.server(), e.getMessage(),
                        wait.toMillis());
                Thread.sleep(wait);
            }
        }
    }

    private void start(Assignment assignment, Duration heartbeatInterval) {
        ResourceSizes.Size size = ResourceSizes.of(assignment.job());
        TaskRunner runner = new TaskRunner(server, spool, assignment, heartbeatInterval, taskSettings);
        capacity.take(size);
        running.add(runner);
        LOG.info("claimed task {} ({} #{}, {})", runner.task(), assignment.job().name(), assignment.job().number(),
                assignment.job().resourceClass());
        Thread.ofPlatform().name("task-" + runner.task()).start(() -> {
            try {
                runner.run();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                LOG.error("task {} failed inside the agent", runner.task(), e);
            } finally {
                running.remove(runner);
                capacity.giveBack(size);
            }
        });
    }
}
