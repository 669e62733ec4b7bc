package dev.gantry.queue;

import java.time.Duration;
import java.time.InstantSource;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * How a {@link Queues} instance behaves. Start from {@link #defaults()} and change what you need; every value is
 * checked when set, naming the setting and the rule.
 *
 * @param lease        how long a claim holds a message before the sweeper may rescue it (heartbeats extend it)
 * @param retryBase    backoff before the first retry; each retry doubles it, with full jitter
 * @param retryCap     the longest backoff between retries
 * @param epochLength  how long enqueues go to one partition before the next is opened
 * @param retention    how long finished messages (and unique keys) are kept before their partition is dropped
 * @param clock        the time the queue reads; inject a manual clock in tests
 * @param random       the jitter source
 */
public record QueueSettings(Duration lease, Duration retryBase, Duration retryCap, Duration epochLength,
                            Duration retention, InstantSource clock, RandomGenerator random) {

    public static final Duration DEFAULT_LEASE = Duration.ofSeconds(60);
    public static final Duration DEFAULT_RETRY_BASE = Duration.ofSeconds(1);
    public static final Duration DEFAULT_RETRY_CAP = Duration.ofMinutes(5);
    public static final Duration DEFAULT_EPOCH_LENGTH = Duration.ofMinutes(1);
    public static final Duration DEFAULT_RETENTION = Duration.ofHours(24);

    public QueueSettings {
        positive("lease", lease);
        positive("retryBase", retryBase);
        positive("retryCap", retryCap);
        positive("epochLength", epochLength);
        positive("retention", retention);
        if (retryCap.compareTo(retryBase) < 0) {
            throw new IllegalArgumentException("retryCap (" + retryCap + ") must not be shorter than retryBase ("
                    + retryBase + ")");
        }
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(random, "random");
    }

    public static QueueSettings defaults() {
        return new QueueSettings(DEFAULT_LEASE, DEFAULT_RETRY_BASE, DEFAULT_RETRY_CAP, DEFAULT_EPOCH_LENGTH,
                DEFAULT_RETENTION, InstantSource.system(), RandomGenerator.getDefault());
    }

    public QueueSettings withLease(Duration lease) {
        return new QueueSettings(lease, retryBase, retryCap, epochLength, retention, clock, random);
    }

    public QueueSettings withRetry(Duration base, Duration cap) {
        return new QueueSettings(lease, base, cap, epochLength, retention, clock, random);
    }

    public QueueSettings withEpochLength(Duration epochLength) {
        return new QueueSettings(lease, retryBase, retryCap, epochLength, retention, clock, random);
    }

    public QueueSettings withRetention(Duration retention) {
        return new QueueSettings(lease, retryBase, retryCap, epochLength, retention, clock, random);
    }

    public QueueSettings withClock(InstantSource clock) {
        return new QueueSettings(lease, retryBase, retryCap, epochLength, retention, clock, random);
    }

    public QueueSettings withRandom(RandomGenerator random) {
        return new QueueSettings(lease, retryBase, retryCap, epochLength, retention, clock, random);
    }

    private static void positive(String name, Duration d) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " must be a positive duration, got " + d);
        }
    }
}
