package dev.gantry.notify;

import dev.gantry.resilience.Bulkhead;
import dev.gantry.resilience.CircuitBreaker;
import dev.gantry.resilience.RetryBudget;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.random.RandomGenerator;

/**
 * What stands between the delivery workers and each destination (per kind and endpoint,
 * {@link Channel.Destination#endpoint()}, e.g. {@code webhook hooks.example.com (ID)}): a {@link Bulkhead} share of
 * the worker pool (within a larger share for all the endpoints of one host, so that a host whose every endpoint hangs
 * still leaves workers for the other hosts), a {@link RetryBudget} (retries at most {@code retryRatio} of first
 * attempts, plus a small burst) and a {@link CircuitBreaker} that lets one probe through once it has been open for
 * {@code openFor}. A send asks {@link #enter} first; when it may not go, the answer says how long the delivery should
 * wait, and waiting spends none of its attempts. A hanging endpoint so holds at most its share of the workers, and a
 * failing one gets about one call per {@code openFor} plus its budget, whatever the number of deliveries waiting for
 * it. Time from the injected clock; thread-safe.
 */
public final class DestinationGuard {

    /**
     * @param poolSize         the delivery workers in all (the bulkhead's pool)
     * @param perDestination   the most of them one destination may hold at once
     * @param perHost          the most of them the destinations of one host may hold at once, all kinds together
     * @param retryRatio       retries allowed per first attempt, per destination
     * @param retryBurst       retries a destination may save up
     * @param failureThreshold failures in a row that open a destination's circuit
     * @param openFor          how long an open circuit refuses before its probe
     * @param busyWait         how long a delivery waits when its destination's share of the pool is taken
     */
    public record Settings(int poolSize, int perDestination, int perHost, double retryRatio, double retryBurst,
                           int failureThreshold, Duration openFor, Duration busyWait) {
        // A busy destination's deliveries wait about half a call's timeout: each return costs a claim and a write, and
        // with 1 s the deliveries of a hanging endpoint came back several times per call they waited for.
        public static final Settings DEFAULTS = new Settings(16, 4, 12, 0.1, 5, 5, Duration.ofSeconds(30),
                Duration.ofSeconds(5));

        public Settings {
            new Bulkhead(poolSize, perHost); // validates
            new Bulkhead(perHost, perDestination);
            new RetryBudget(retryRatio, retryBurst);
            new CircuitBreaker(failureThreshold, openFor, InstantSource.system());
            if (busyWait.isNegative() || busyWait.isZero()) {
                throw new IllegalArgumentException("busyWait must be positive, got " + busyWait);
            }
        }
    }

    /** What {@link #enter} answers. */
    public sealed interface Decision {
    }

    /** Go ahead; report the outcome on the permit, then close it. */
    public record Go(Permit permit) implements Decision {
    }

    /** Not now: try again after {@code delay}; {@code reason} is for the delivery log. */
    public record Wait(Duration delay, String reason) implements Decision {
    }

    private record Key(String kind, String endpoint) {
        @Override
        public String toString() {
            return kind + " " + endpoint;
        }
    }

    private record Policies(RetryBudget budget, CircuitBreaker breaker) {
    }

    private final Settings settings;
    private final InstantSource clock;
    private final RandomGenerator random;
    private final Bulkhead bulkhead;
    private final Bulkhead hosts;
    private final Map<Key, Policies> destinations = new ConcurrentHashMap<>();

    public DestinationGuard(Settings settings, InstantSource clock, RandomGenerator random) {
        this.settings = settings;
        this.clock = clock;
        this.random = random;
        this.bulkhead = new Bulkhead(settings.poolSize(), settings.perDestination());
        this.hosts = new Bulkhead(settings.poolSize(), settings.perHost());
    }

    public Settings settings() {
        return settings;
    }

    /**
     * Whether a send of {@code kind} to {@code endpoint} ({@link Channel.Destination#endpoint()}) on {@code host} may
     * go now; {@code retry} when the delivery has failed before (it then needs the destination's retry budget).
     */
    public Decision enter(String kind, String host, String endpoint, boolean retry) {
        Key key = new Key(kind, endpoint.toLowerCase(Locale.ROOT));
        String hostKey = host.toLowerCase(Locale.ROOT);
        Policies policies = destinations.computeIfAbsent(key, k -> new Policies(
                new RetryBudget(settings.retryRatio(), settings.retryBurst()),
                new CircuitBreaker(settings.failureThreshold(), settings.openFor(), clock)));
        // Cheap refusals first, and the breaker's probe last: a probe taken must be followed by a call.
        if (policies.breaker().state() == CircuitBreaker.State.OPEN) {
            return new Wait(jittered(settings.openFor()), "circuit open for " + key);
        }
        if (!bulkhead.tryAcquire(key.toString())) {
            return new Wait(jittered(settings.busyWait()), "all " + settings.perDestination()
                    + " workers for " + key + " busy");
        }
        if (!hosts.tryAcquire(hostKey)) {
            bulkhead.release(key.toString());
            return new Wait(jittered(settings.busyWait()), "all " + settings.perHost()
                    + " workers for host " + hostKey + " busy");
        }
        Permit permit = new Permit(key, hostKey, policies.breaker());
        if (retry && !policies.budget().tryRetry()) {
            permit.release();
            return new Wait(jittered(settings.openFor()), "retry budget for " + key + " spent");
        }
        if (!policies.breaker().tryCall()) {
            permit.release();
            return new Wait(jittered(settings.openFor()), "circuit half-open for " + key + ", its probe under way");
        }
        if (!retry) {
            policies.budget().recordFirstAttempt();
        }
        return new Go(permit);
    }

    /** The state of the circuit of {@code kind} and {@code endpoint} (closed when it has never been called). */
    public CircuitBreaker.State circuit(String kind, String endpoint) {
        Policies policies = destinations.get(new Key(kind, endpoint.toLowerCase(Locale.ROOT)));
        return policies == null ? CircuitBreaker.State.CLOSED : policies.breaker().state();
    }

    /** Between half and all of {@code delay}, so deliveries that waited together do not return together. */
    private Duration jittered(Duration delay) {
        long millis = delay.toMillis();
        return Duration.ofMillis(millis / 2 + random.nextLong(millis / 2 + 1));
    }

    /** One send let through: report its outcome once, and close it (in a finally) to give back its worker. */
    public final class Permit implements AutoCloseable {
        private final Key key;
        private final String host;
        private final CircuitBreaker breaker;
        private boolean reported;
        private boolean closed;

        private Permit(Key key, String host, CircuitBreaker breaker) {
            this.key = key;
            this.host = host;
            this.breaker = breaker;
        }

        /** The destination answered as it should. */
        public void succeeded() {
            report(true);
        }

        /** The destination failed: an error answer, a timeout, a reset. */
        public void failed() {
            report(false);
        }

        private void report(boolean success) {
            if (reported) {
                throw new IllegalStateException("the outcome of a send to " + key + " was reported twice");
            }
            reported = true;
            if (success) {
                breaker.recordSuccess();
            } else {
                breaker.recordFailure();
            }
        }

        /** Gives back the worker; a send never reported counts as failed, so a probe cannot be lost. */
        @Override
        public void close() {
            if (closed) {
                return;
            }
            closed = true;
            if (!reported) {
                failed();
            }
            release();
        }

        private void release() {
            hosts.release(host);
            bulkhead.release(key.toString());
        }
    }
}
