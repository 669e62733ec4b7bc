package dev.gantry.scheduler.fleet;

import dev.gantry.scheduler.InstanceType;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SplittableRandom;

/**
 * A cloud on a virtual clock, for tests and the simulator: no threads, no sleeping, deterministic for a seed.
 * Provisioning takes a lognormal time given by its median and 95th percentile; each (cluster, type) may have a
 * capacity limit, changeable at any time, past which launches answer "insufficient capacity"; a launch fails outright
 * with a given probability. Instances are up at launch time plus their latency: ask {@link #readyBy}.
 * Not thread-safe: one simulation drives it.
 */
public final class SimulatedProvider implements FleetProvider {
    /** z for the 95th percentile of a standard normal distribution. */
    private static final double Z95 = 1.6448536269514722;

    /** An instance the simulated cloud started. */
    public record Machine(String id, String cluster, InstanceType type, Instant launchedAt, Instant readyAt) {
    }

    private record Key(String cluster, String type) {
    }

    private final InstantSource clock;
    private final SplittableRandom random;
    private final Duration median;
    private final double sigma;
    private final double failureProbability;
    private final Map<Key, Integer> capacity = new HashMap<>();
    private final Map<String, Machine> running = new LinkedHashMap<>();

    /**
     * @param clock              the virtual clock launches are timed by
     * @param seed               seeds latency and failure draws
     * @param median             median provisioning latency
     * @param p95                95th percentile of provisioning latency, at least the median
     * @param failureProbability chance in [0, 1] that a launch answers {@link LaunchResult.Failed}
     */
    public SimulatedProvider(InstantSource clock, long seed, Duration median, Duration p95, double failureProbability) {
        this.clock = Objects.requireNonNull(clock, "clock");
        if (median.isNegative() || p95.compareTo(median) < 0) {
            throw new IllegalArgumentException("provisioning latency needs 0 <= median <= p95, got median " + median
                    + ", p95 " + p95);
        }
        if (!(failureProbability >= 0 && failureProbability <= 1)) {
            throw new IllegalArgumentException("failure probability must be in [0, 1], got " + failureProbability);
        }
        this.random = new SplittableRandom(seed);
        this.median = median;
        this.sigma = median.isZero() ? 0 : Math.log((double) p95.toMillis() / median.toMillis()) / Z95;
        this.failureProbability = failureProbability;
    }

    /** At most {@code limit} instances of {@code type} may run in {@code cluster} from now on (running ones stay). */
    public void setCapacity(String cluster, String type, int limit) {
        if (limit < 0) {
            throw new IllegalArgumentException("capacity cannot be negative: " + limit);
        }
        capacity.put(new Key(cluster, type), limit);
    }

    /** Removes the limit of {@code type} in {@code cluster}. */
    public void clearCapacity(String cluster, String type) {
        capacity.remove(new Key(cluster, type));
    }

    @Override
    public LaunchResult launch(String cluster, InstanceType type, String instanceId) {
        Key key = new Key(cluster, type.name());
        Integer limit = capacity.get(key);
        long inUse = running.values().stream()
                .filter(m -> m.cluster().equals(cluster) && m.type().name().equals(type.name())).count();
        // Draw both numbers on every launch so that a capacity change does not shift later draws.
        double failure = random.nextDouble();
        double gaussian = nextGaussian();
        if (limit != null && inUse >= limit) {
            return new LaunchResult.InsufficientCapacity(cluster + " has no " + type.name() + " left (limit " + limit
                    + ")");
        }
        if (failure < failureProbability) {
            return new LaunchResult.Failed("simulated failure launching " + type.name() + " in " + cluster);
        }
        Instant now = clock.instant();
        long latency = Math.round(median.toMillis() * Math.exp(sigma * gaussian));
        running.put(instanceId, new Machine(instanceId, cluster, type, now, now.plusMillis(latency)));
        return new LaunchResult.Launched(Optional.of(now.plus(median)));
    }

    @Override
    public void terminate(String instanceId) {
        running.remove(instanceId);
    }

    /** Instances up at {@code now}, by id. */
    public List<Machine> readyBy(Instant now) {
        return running.values().stream().filter(m -> !m.readyAt().isAfter(now)).toList();
    }

    /** Every instance launched and not terminated, up or not. */
    public List<Machine> machines() {
        return List.copyOf(running.values());
    }

    private double nextGaussian() {
        // Box–Muller from the seeded generator, so the sequence is the same on every JDK.
        double u1 = 1 - random.nextDouble();
        double u2 = random.nextDouble();
        return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
    }
}
