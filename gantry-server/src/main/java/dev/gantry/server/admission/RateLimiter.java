package dev.gantry.server.admission;

import dev.gantry.resilience.TokenBucket;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link TokenBucket} per caller (an API token, an agent's credential, a client address): each request spends a
 * token, and a caller whose bucket is empty is told how long until it has one. Buckets that have filled up again are
 * forgotten now and then, so callers seen once do not pile up. Time from the injected clock; thread-safe.
 */
public final class RateLimiter {
    /** Buckets are swept of full (idle) ones every this many new callers. */
    static final int SWEEP_EVERY = 1_000;

    private final InstantSource clock;
    private final Map<String, TokenBucket> buckets = new ConcurrentHashMap<>();
    private final AtomicInteger created = new AtomicInteger();

    public RateLimiter(InstantSource clock) {
        this.clock = clock;
    }

    /** A caller's allowance: {@code perSecond} requests a second on average, {@code burst} at once. */
    public record Limit(double perSecond, int burst) {
        public Limit {
            if (!(perSecond > 0) || burst < 1) {
                throw new IllegalArgumentException("a rate limit needs a positive rate and a burst of at least 1, got "
                        + perSecond + "/s and " + burst);
            }
        }
    }

    /**
     * Spends one of {@code caller}'s tokens under {@code limit}: empty when the request may go, else how long until
     * the caller has a token again.
     */
    public Optional<Duration> admit(String caller, Limit limit) {
        TokenBucket bucket = buckets.get(caller);
        if (bucket == null) {
            sweepNowAndThen();
            bucket = buckets.computeIfAbsent(caller, c -> new TokenBucket(limit.perSecond(), limit.burst(), clock));
        }
        return bucket.tryTake() ? Optional.empty() : Optional.of(bucket.untilNext());
    }

    /** How many callers have a bucket now. */
    int callers() {
        return buckets.size();
    }

    private void sweepNowAndThen() {
        if (created.incrementAndGet() % SWEEP_EVERY == 0) {
            // A full bucket is one that has been idle long enough to refill: forgetting it changes no answer.
            buckets.values().removeIf(b -> b.tokens() >= b.burst());
        }
    }
}
