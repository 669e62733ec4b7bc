package dev.gantry.bench.chaos;

import dev.gantry.bench.GantryProcesses;
import dev.gantry.cli.client.GantryClient;
import dev.gantry.resilience.Backoff;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The chaos suite's triggers, through the balancer. Each trigger carries an {@code Idempotency-Key} of its own and is
 * sent again with that key until an answer 2xx with an id comes back: a request that failed without an answer may
 * have been stored, and the key makes the retry return that pipeline rather than make a second. Every accepted
 * trigger is remembered, to be found again at the end. Thread-safe.
 */
final class Workload {
    /** How long one trigger is retried before it counts as never accepted. */
    static final Duration TRIGGER_PATIENCE = Duration.ofMinutes(3);

    /** An accepted trigger: the pipeline's id, its shape and the key it was sent with. */
    record Accepted(String id, Shape shape, String key) {
    }

    private final ChaosApi api;
    private final String keyPrefix;
    private final AtomicLong sequence = new AtomicLong();
    private final ConcurrentLinkedQueue<Accepted> accepted = new ConcurrentLinkedQueue<>();
    private final AtomicLong retried = new AtomicLong();
    private final AtomicLong unaccepted = new AtomicLong();

    Workload(ChaosApi api, long seed) {
        this.api = api;
        this.keyPrefix = "chaos-" + seed + "-";
    }

    /** Creates a repository and a project per shape, its jobs tracing to {@code trace}. */
    static void registerProjects(GantryClient admin, Path dir, Path trace, String sleep) throws IOException {
        for (Shape shape : Shape.values()) {
            Path repository = dir.resolve("repositories").resolve(shape.project);
            GantryProcesses.repository(repository, shape.config(trace.toString(), shape == Shape.PROBE ? "0" : sleep));
            GantryClient.Answer created = admin.post("/api/v2/project", Map.of("name", shape.project, "repo_url",
                    repository.toString()));
            if (!created.ok()) {
                throw new IllegalStateException("registering project " + shape.project + ": " + created.message());
            }
        }
    }

    /** Between tries of one trigger: 250 ms doubling to 2 s, full jitter (the shared policy). */
    static final Backoff TRIGGER_BACKOFF = new Backoff(Duration.ofMillis(250), Duration.ofSeconds(2));

    /**
     * Triggers a pipeline of {@code shape}, sending it again with the same key after a failure (no answer, 5xx,
     * 429) with capped, jittered backoff, for up to {@link #TRIGGER_PATIENCE}.
     *
     * @return the accepted trigger, or null if none was accepted in time (counted in {@link #unaccepted()})
     * @throws IllegalStateException for a 4xx answer other than 408 and 429: the driver's request is wrong
     */
    Accepted trigger(Shape shape) throws InterruptedException {
        String key = keyPrefix + sequence.incrementAndGet();
        long deadline = System.nanoTime() + TRIGGER_PATIENCE.toNanos();
        for (int attempt = 1; ; attempt++) {
            try {
                ChaosApi.Answer answer = api.trigger(shape.slug(), key);
                if (answer.ok() && answer.json().path("id").isTextual()) {
                    Accepted done = new Accepted(answer.json().path("id").asText(), shape, key);
                    accepted.add(done);
                    if (attempt > 1) {
                        retried.incrementAndGet();
                    }
                    return done;
                }
                int status = answer.status();
                if (status / 100 == 4 && status != 408 && status != 429) {
                    throw new IllegalStateException("trigger " + key + " of " + shape.slug() + " refused: HTTP "
                            + status + " " + answer.json());
                }
            } catch (IOException noAnswer) {
                // refused, reset or timed out: maybe stored, maybe not; the same key settles it
            }
            if (System.nanoTime() > deadline) {
                unaccepted.incrementAndGet();
                return null;
            }
            Thread.sleep(TRIGGER_BACKOFF.delay(attempt, ThreadLocalRandom.current()).toMillis());
        }
    }

    /** Every accepted trigger so far. */
    List<Accepted> accepted() {
        return List.copyOf(accepted);
    }

    /** Accepted triggers that needed more than one request. */
    long retried() {
        return retried.get();
    }

    /** Triggers never accepted within {@link #TRIGGER_PATIENCE}: not lost (never acknowledged), but reported. */
    long unaccepted() {
        return unaccepted.get();
    }
}
