package dev.gantry.agent.task;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gantry.agent.protocol.AgentException;
import dev.gantry.agent.protocol.AgentServer;
import dev.gantry.agent.protocol.Completion;
import dev.gantry.agent.protocol.LeaseLostException;
import dev.gantry.agent.protocol.OutputOffsetException;
import dev.gantry.agent.protocol.ProtocolException;
import dev.gantry.agent.protocol.RetryPolicy;
import dev.gantry.agent.protocol.ServerUnavailableException;
import dev.gantry.agent.protocol.StepReport;
import dev.gantry.agent.protocol.StepStatus;
import dev.gantry.agent.protocol.TaskOutcome;
import dev.gantry.agent.protocol.TaskRef;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finished tasks whose completion the server has not acknowledged yet, kept on disk until it does, so that neither a
 * server or database outage nor a restart of the agent loses a result or makes a finished job run again. Each is two
 * files in {@code <work dir>/completions/} (0700): {@code <key>.json} with the outcome, the step ends not yet sent,
 * how much output the server acknowledged and the agent credential the task was leased under (0600), and
 * {@code <key>.log}, the task's whole output (masked, as the agent wrote it).
 *
 * <p>A finished task is kept first and then delivered at once; one the server cannot take now stays, and the drainer
 * ({@link #start}) delivers it later, with capped, jittered backoff, for as long as the result can still count: the
 * window (24 h by default) from the task's end. Any run of an agent on the same work directory delivers what an
 * earlier run kept, under the earlier run's credential. The server takes a completion after the lease ran out while
 * no other attempt of the job has started, and keeps it as superseded otherwise; a refusal (409: not this task's
 * lease at all) or an expired window drops it, with a warning. Thread-safe.
 */
public final class CompletionSpool implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CompletionSpool.class);
    public static final String DIRECTORY = "completions";
    public static final Duration DEFAULT_WINDOW = Duration.ofHours(24);
    /**
     * Between delivery rounds while the server cannot take completions: 1 s doubling to 15 s, jittered. Each round's
     * call itself retries for a while ({@code RetryPolicy.DEFAULT}), so a result lands soon after the server is back.
     */
    private static final RetryPolicy BACKOFF = new RetryPolicy(Duration.ofSeconds(1), Duration.ofSeconds(15),
            Duration.ZERO);
    /** How often the drainer looks at the directory when nothing waits: for what another run left there. */
    private static final Duration IDLE_LOOK = Duration.ofMinutes(1);
    private static final ObjectMapper JSON = new ObjectMapper()
            .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    /** How a delivery went. */
    enum Delivery {
        /** The server took it; it is forgotten here. */
        DELIVERED,
        /** The server kept it as superseded (another attempt of the job had started); forgotten here. */
        SUPERSEDED,
        /** The server cannot take it now (or another thread is delivering it): it stays. */
        PENDING,
        /** It can never be delivered (not this task's lease, or unreadable): dropped with a warning. */
        REFUSED
    }

    /** One kept completion: where its files are and what they say. */
    record Kept(String key, TaskRef task, String credential, Instant finishedAt, TaskOutcome outcome, String message,
                Map<Integer, StepReport> steps, long acknowledged) {
        @Override
        public String toString() {
            return task.toString(); // never the credential
        }
    }

    private final Path dir;
    private final Duration window;
    private final Set<String> delivering = ConcurrentHashMap.newKeySet();
    private final Semaphore wake = new Semaphore(0);
    private volatile boolean closed;
    private volatile Thread drainer;

    /** The spool under {@code workDir}, made if missing; results older than {@code window} are dropped. */
    public CompletionSpool(Path workDir, Duration window) throws IOException {
        if (!window.isPositive()) {
            throw new IllegalArgumentException("the result window must be positive, got " + window);
        }
        this.dir = workDir.toAbsolutePath().resolve(DIRECTORY);
        this.window = window;
        Files.createDirectories(dir);
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
    }

    /**
     * Keeps a finished task's completion: moves {@code outputLog} (the task's whole output, of which the server holds
     * the first {@code acknowledged} bytes) into the spool and writes the rest beside it.
     */
    Kept keep(TaskRef task, String credential, TaskOutcome outcome, String message, Map<Integer, StepReport> steps,
              Path outputLog, long acknowledged) throws IOException {
        String key = "job-" + task.jobId().replaceAll("[^A-Za-z0-9-]", "") + "-" + task.nodeIndex() + "-"
                + task.lease().replaceAll("[^A-Za-z0-9-]", "");
        Kept kept = new Kept(key, task, credential, Instant.now(), outcome, message, steps, acknowledged);
        Files.move(outputLog, output(key), StandardCopyOption.REPLACE_EXISTING);
        Path partial = dir.resolve(key + ".json.partial");
        Files.deleteIfExists(partial);
        Files.write(partial, JSON.writeValueAsBytes(toJson(kept)), StandardOpenOption.CREATE_NEW,
                StandardOpenOption.WRITE);
        Files.setPosixFilePermissions(partial, PosixFilePermissions.fromString("rw-------"));
        Files.move(partial, record(key), StandardCopyOption.ATOMIC_MOVE);
        return kept;
    }

    /**
     * Delivers {@code kept} to {@code server} (under the credential it was leased with): output the server does not
     * hold yet first, through output calls when it is more than a completion carries, then the completion. A task the
     * server gave up as lost refuses output calls; its completion then carries the last part of the output only.
     */
    Delivery deliver(Kept kept, AgentServer server) throws InterruptedException {
        if (!delivering.add(kept.key())) {
            return Delivery.PENDING;
        }
        try (FileChannel output = FileChannel.open(output(kept.key()), StandardOpenOption.READ)) {
            AgentServer as = server.as(kept.credential());
            long size = output.size();
            long acknowledged = kept.acknowledged();
            while (true) {
                if (size - acknowledged <= Completion.MAX_OUTPUT) {
                    Completion completion = new Completion(kept.outcome(), kept.message(), kept.steps(),
                            acknowledged, read(output, acknowledged, (int) (size - acknowledged)));
                    try {
                        boolean counted = as.complete(kept.task(), completion);
                        forget(kept);
                        if (!counted) {
                            LOG.warn("task {} ended {} after its lease ran out and another attempt of the job had "
                                    + "started: the server keeps the result, but it does not count", kept.task(),
                                    kept.outcome().word());
                            return Delivery.SUPERSEDED;
                        }
                        return Delivery.DELIVERED;
                    } catch (OutputOffsetException gap) {
                        if (gap.length() >= acknowledged) {
                            throw new ProtocolException("complete", 409, "the server holds " + gap.length()
                                    + " bytes of output yet refuses them from " + acknowledged);
                        }
                        acknowledged = gap.length(); // it holds less than it acknowledged: resend from there
                    }
                } else {
                    try {
                        acknowledged = Math.max(acknowledged, as.appendOutput(kept.task(), acknowledged,
                                read(output, acknowledged, OutputShipper.CHUNK)));
                    } catch (OutputOffsetException gap) {
                        acknowledged = gap.length();
                    } catch (LeaseLostException lost) {
                        acknowledged = size - Completion.MAX_OUTPUT; // given up as lost: the tail may still count
                    }
                }
            }
        } catch (ServerUnavailableException e) {
            return Delivery.PENDING;
        } catch (LeaseLostException e) {
            LOG.warn("the server refused the result of task {} ({}): {}; dropped", kept.task(), kept.outcome().word(),
                    e.getMessage());
            forget(kept);
            return Delivery.REFUSED;
        } catch (NoSuchFileException e) {
            return Delivery.DELIVERED; // another run of the agent on this directory delivered it meanwhile
        } catch (AgentException | IOException e) {
            LOG.error("the result of task {} ({}) cannot be delivered: {}; dropped", kept.task(),
                    kept.outcome().word(), e.getMessage());
            forget(kept);
            return Delivery.REFUSED;
        } finally {
            delivering.remove(kept.key());
        }
    }

    /** Starts the drainer, which delivers what is kept through {@code server} until {@link #close}. */
    public void start(AgentServer server) {
        drainer = Thread.ofVirtual().name("completion-spool").start(() -> drain(server));
    }

    /** Asks the drainer to look now: a task's result was just kept and the server could not take it. */
    void wakeUp() {
        wake.release();
    }

    /** How many completions wait here. */
    public int size() {
        return kept().size();
    }

    @Override
    public void close() {
        closed = true;
        Thread t = drainer;
        if (t != null) {
            t.interrupt();
        }
    }

    private void drain(AgentServer server) {
        int failures = 0;
        while (!closed) {
            try {
                boolean pending = false;
                for (Kept kept : kept()) {
                    if (Instant.now().isAfter(kept.finishedAt().plus(window))) {
                        LOG.error("the result of task {} ({}, ended {}) could not be delivered within {}; dropped",
                                kept.task(), kept.outcome().word(), kept.finishedAt(), window);
                        forget(kept);
                    } else if (deliver(kept, server) == Delivery.PENDING) {
                        pending = true;
                        break; // the server is away: the rest waits too
                    } else {
                        LOG.info("delivered the kept result of task {} ({})", kept.task(), kept.outcome().word());
                    }
                }
                Duration wait = pending ? BACKOFF.delay(failures++, null, ThreadLocalRandom.current()) : IDLE_LOOK;
                if (!pending) {
                    failures = 0;
                }
                wake.tryAcquire(wait.toMillis(), TimeUnit.MILLISECONDS);
                wake.drainPermits();
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                LOG.error("delivering kept results failed; trying again in a minute", e);
                try {
                    Thread.sleep(IDLE_LOOK);
                } catch (InterruptedException stop) {
                    return;
                }
            }
        }
    }

    /** What is kept, oldest first; a record that cannot be read is set aside as {@code .broken}. */
    private List<Kept> kept() {
        List<Kept> all = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : files.filter(f -> f.getFileName().toString().endsWith(".json")).toList()) {
                try {
                    all.add(fromJson(JSON.readTree(file.toFile())));
                } catch (NoSuchFileException gone) {
                    // delivered meanwhile
                } catch (IOException | RuntimeException e) {
                    LOG.error("cannot read the kept result {}: {}; set aside", file, e.toString());
                    Files.move(file, file.resolveSibling(file.getFileName() + ".broken"),
                            StandardCopyOption.REPLACE_EXISTING);
                }
            }
        } catch (IOException e) {
            LOG.error("cannot list the kept results in {}: {}", dir, e.toString());
        }
        all.sort(Comparator.comparing(Kept::finishedAt));
        return all;
    }

    private void forget(Kept kept) {
        try {
            Files.deleteIfExists(record(kept.key()));
            Files.deleteIfExists(output(kept.key()));
        } catch (IOException e) {
            LOG.warn("cannot remove the delivered result of task {}: {}", kept.task(), e.toString());
        }
    }

    private Path record(String key) {
        return dir.resolve(key + ".json");
    }

    private Path output(String key) {
        return dir.resolve(key + ".log");
    }

    private static byte[] read(FileChannel channel, long from, int count) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(count);
        while (buffer.hasRemaining() && channel.read(buffer, from + buffer.position()) >= 0) {
            // reads until full or the end of the file
        }
        return buffer.position() == count ? buffer.array() : Arrays.copyOf(buffer.array(), buffer.position());
    }

    private static ObjectNode toJson(Kept kept) {
        ObjectNode json = JSON.createObjectNode();
        json.put("key", kept.key());
        json.put("job_id", kept.task().jobId());
        json.put("node_index", kept.task().nodeIndex());
        json.put("lease", kept.task().lease());
        json.put("credential", kept.credential());
        json.put("finished_at", kept.finishedAt().toString());
        json.put("outcome", kept.outcome().word());
        json.put("message", kept.message());
        json.put("acknowledged", kept.acknowledged());
        ArrayNode steps = json.putArray("steps");
        kept.steps().forEach((index, r) -> {
            ObjectNode step = steps.addObject();
            step.put("index", index);
            step.put("name", r.name());
            step.put("status", r.status().word());
            if (r.exitCode() != null) {
                step.put("exit_code", r.exitCode());
            }
            step.put("output_offset", r.outputOffset());
            step.put("started_at", r.startedAt() == null ? null : r.startedAt().toString());
            step.put("stopped_at", r.stoppedAt() == null ? null : r.stoppedAt().toString());
        });
        return json;
    }

    private static Kept fromJson(JsonNode json) {
        Map<Integer, StepReport> steps = new LinkedHashMap<>();
        for (JsonNode step : json.path("steps")) {
            steps.put(step.path("index").asInt(), new StepReport(step.path("name").asText(),
                    word(StepStatus.values(), step.path("status").asText(), StepStatus::word),
                    step.hasNonNull("exit_code") ? step.get("exit_code").asInt() : null,
                    step.path("output_offset").asLong(), instant(step.path("started_at")),
                    instant(step.path("stopped_at"))));
        }
        return new Kept(json.path("key").asText(), new TaskRef(json.path("job_id").asText(),
                json.path("node_index").asInt(), json.path("lease").asText()), json.path("credential").asText(),
                Instant.parse(json.path("finished_at").asText()),
                word(TaskOutcome.values(), json.path("outcome").asText(), TaskOutcome::word),
                json.hasNonNull("message") ? json.get("message").asText() : null, steps,
                json.path("acknowledged").asLong());
    }

    private static Instant instant(JsonNode text) {
        return text.isNull() || text.isMissingNode() ? null : Instant.parse(text.asText());
    }

    private static <E> E word(E[] values, String word, Function<E, String> wordOf) {
        for (E value : values) {
            if (wordOf.apply(value).equals(word)) {
                return value;
            }
        }
        throw new IllegalArgumentException("unknown word '" + word + "'");
    }
}
