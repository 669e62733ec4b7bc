package dev.gantry.sim;

import dev.gantry.resilience.Backoff;
import dev.gantry.resilience.DistressPause;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The failures a scenario declares beyond the cloud's (the queue database degrading, external endpoints failing),
 * how clients behave (their timeout, users retriggering what they do not see), and the settings of the policies
 * that answer them under Gantry and under the baseline. All optional: without a {@code database} every write
 * commits, as in the fleet-only scenarios. Immutable; read by {@link ResilienceReader}, format in docs/simulator.md.
 */
public record Resilience(Optional<Database> database, Optional<Outbound> outbound, Clients clients,
                         GantrySettings gantry, BaselineRetries baseline) {
    /** No database, no endpoints, clients that never retrigger. */
    public static final Resilience NONE = new Resilience(Optional.empty(), Optional.empty(), Clients.DEFAULT,
            GantrySettings.DEFAULT, BaselineRetries.DEFAULT);

    /**
     * The server's shared pool of workers for calls out: every job start (a call of {@code dispatch} to its agent)
     * and every call to an external endpoint takes a worker for the call's length. A call that waits longer than
     * {@code deadline} for a worker fails (its caller has given up: an agent's claim expires, a webhook is dropped).
     * Under Gantry a {@code Bulkhead} gives each destination (the agents, each endpoint) at most {@code share} of the
     * pool; the baseline's one pool serves every call first come, first served.
     */
    public record Outbound(int workers, double share, Duration dispatch, Duration deadline,
                           List<Endpoint> endpoints) {
        public Outbound {
            endpoints = List.copyOf(endpoints);
        }
    }

    /**
     * An external endpoint the server calls {@code callsPerHour} times an hour (Poisson). A call takes
     * {@code latency}; in a {@code failing} window it fails after that latency, in a {@code hanging} one it fails
     * after {@code timeout}.
     */
    public record Endpoint(String name, double callsPerHour, Duration latency, Duration timeout,
                           List<Window> failing, List<Window> hanging) {
        public Endpoint {
            failing = List.copyOf(failing);
            hanging = List.copyOf(hanging);
        }

        boolean failingAt(Duration t) {
            return failing.stream().anyMatch(w -> w.contains(t)) || hangingAt(t);
        }

        boolean hangingAt(Duration t) {
            return hanging.stream().anyMatch(w -> w.contains(t));
        }
    }

    /** {@code from} inclusive to {@code until} exclusive, after the start. */
    public record Window(Duration from, Duration until) {
        boolean contains(Duration t) {
            return t.compareTo(from) >= 0 && t.compareTo(until) < 0;
        }
    }

    /** Between {@code from} and {@code until} the database commits at most {@code writesPerSecond}. */
    public record Capped(Window window, double writesPerSecond) {
    }

    /**
     * The queue database: every trigger and every job start is one write. It commits {@code writesPerSecond} normally,
     * less while {@code capped}, nothing while {@code readOnly} (every write fails at once, as when the WAL volume
     * filled). Offered more than it commits, it thrashes: see {@link QueueDatabase}.
     *
     * @param latency a write's latency when the database keeps up
     */
    public record Database(double writesPerSecond, Duration latency, List<Capped> capped, List<Window> readOnly) {
        public Database {
            capped = List.copyOf(capped);
            readOnly = List.copyOf(readOnly);
        }

        /** Writes per second it can commit at {@code t}. */
        public double capacityAt(Duration t) {
            if (readOnly.stream().anyMatch(w -> w.contains(t))) {
                return 0;
            }
            return capped.stream().filter(c -> c.window().contains(t)).mapToDouble(Capped::writesPerSecond).min()
                    .orElse(writesPerSecond);
        }

        /** When the database last returns to full health: the end of its last capped or read-only window. */
        public Duration recoveredAt() {
            Duration last = Duration.ZERO;
            for (Capped c : capped) {
                last = c.window().until().compareTo(last) > 0 ? c.window().until() : last;
            }
            for (Window w : readOnly) {
                last = w.until().compareTo(last) > 0 ? w.until() : last;
            }
            return last;
        }

        /** When it first degrades: the start of its first capped or read-only window. */
        public Duration degradedAt() {
            Duration first = Duration.ofDays(36500);
            for (Capped c : capped) {
                first = c.window().from().compareTo(first) < 0 ? c.window().from() : first;
            }
            for (Window w : readOnly) {
                first = w.from().compareTo(first) < 0 ? w.from() : first;
            }
            return first;
        }
    }

    /**
     * How clients behave. A trigger whose write takes longer than {@code timeout} is seen as failed by its client,
     * though it may have committed. With a {@code retrigger}, a user whose pipeline has not started {@code after} its
     * trigger triggers it again, up to {@code times} times.
     */
    public record Clients(Duration timeout, Optional<Retrigger> retrigger) {
        public static final Clients DEFAULT = new Clients(Duration.ofSeconds(10), Optional.empty());
    }

    public record Retrigger(Duration after, int times) {
    }

    /**
     * Gantry's settings: the job queue's dispatch rate (the queue's {@code maxPerSecond}, which a ramp scales), the
     * retry budget and backoff of every client and worker, the self-pause, and each external destination's circuit
     * breaker (open after {@code breakerFailures} failures in a row, for {@code breakerOpenFor}).
     */
    public record GantrySettings(double dispatchPerSecond, double budgetRatio, double budgetBurst, Backoff backoff,
                                 DistressPause.Settings pause, int breakerFailures, Duration breakerOpenFor) {
        public static final GantrySettings DEFAULT = new GantrySettings(10, 0.1, 10,
                new Backoff(Duration.ofSeconds(1), Duration.ofMinutes(5)),
                new DistressPause.Settings(Duration.ofSeconds(1), Duration.ofMinutes(2), 0.1,
                        Duration.ofMinutes(30)), 5, Duration.ofSeconds(30));
    }

    /** The baseline's fixed retries: up to {@code attempts} in all, {@code every} apart, no budget, no backoff. */
    public record BaselineRetries(int attempts, Duration every) {
        public static final BaselineRetries DEFAULT = new BaselineRetries(5, Duration.ofSeconds(1));
    }
}
