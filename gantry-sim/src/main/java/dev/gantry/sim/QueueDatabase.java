package dev.gantry.sim;

import dev.gantry.sim.Resilience.Database;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The simulated queue database: a queue of writes served at its capacity ({@link Database#capacityAt}), so a write
 * waits for the writes before it ({@code backlog / capacity}) on top of its own {@code latency}. It commits every
 * write it queues, even one whose client has given up waiting (as PostgreSQL finishes a statement whose client timed
 * out): a retry of such a write is work done twice, which is how retries turn a slow database into a storm. A write
 * that would wait more than {@link #MAX_WAIT} is refused at once (no connection free, the server's statement
 * timeout). Read-only, every write fails at once. Counts writes per minute, to measure load. Not thread-safe.
 */
final class QueueDatabase {
    /** The longest a write may queue before it is refused: the server's socket timeout (docs/queue.md). */
    static final Duration MAX_WAIT = Duration.ofSeconds(30);

    /** What a write came to: whether it committed, and how long the caller waited for the answer. */
    record Outcome(boolean committed, Duration latency) {
    }

    private final Database spec;
    private final Instant start;
    private final List<long[]> perMinute = new ArrayList<>(); // {attempts, commits}
    private double backlog;
    private Instant backlogAt;
    private long attempts;
    private long commits;

    QueueDatabase(Database spec, Instant start) {
        this.spec = spec;
        this.start = start;
        this.backlogAt = start;
    }

    Outcome write(Instant now) {
        Duration t = Duration.between(start, now);
        double capacity = spec.capacityAt(t);
        attempts++;
        long[] minute = minute(t);
        minute[0]++;
        if (capacity == 0) {
            backlog = 0; // read-only: what was queued failed too
            backlogAt = now;
            return new Outcome(false, Duration.ZERO);
        }
        backlog = Math.max(0, backlog - Duration.between(backlogAt, now).toMillis() / 1000.0 * capacity);
        backlogAt = now;
        double waitSeconds = backlog / capacity;
        if (waitSeconds > MAX_WAIT.toSeconds()) {
            return new Outcome(false, MAX_WAIT);
        }
        backlog++;
        commits++;
        minute[1]++;
        return new Outcome(true, spec.latency().plusMillis(Math.round(waitSeconds * 1000)));
    }

    long attempts() {
        return attempts;
    }

    long commits() {
        return commits;
    }

    /** Write attempts in each minute of the run so far, from the start. */
    long[] attemptsPerMinute() {
        return perMinute.stream().mapToLong(m -> m[0]).toArray();
    }

    /** Commits in each minute of the run so far, from the start. */
    long[] commitsPerMinute() {
        return perMinute.stream().mapToLong(m -> m[1]).toArray();
    }

    private long[] minute(Duration t) {
        int m = (int) t.toMinutes();
        while (perMinute.size() <= m) {
            perMinute.add(new long[2]);
        }
        return perMinute.get(m);
    }
}
