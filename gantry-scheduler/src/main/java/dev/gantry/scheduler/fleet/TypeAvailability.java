package dev.gantry.scheduler.fleet;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.random.RandomGenerator;

/**
 * Which (cluster, instance type) pairs the provider recently could not supply. After "insufficient capacity" or a
 * failed launch a type is {@link State#UNAVAILABLE} until a jittered moment, then {@link State#PROBE}: one launch may try it again. A
 * launch that succeeds clears it; another shortage marks it unavailable again. Immutable: every change returns a new
 * value, so a plan computed from one value cannot be changed under it. Reads no clock and draws randomness only from
 * the generator it is given.
 */
public final class TypeAvailability {
    /** The unavailable period is the configured one ± this percentage, so that re-probes do not all land at once. */
    public static final int JITTER_PERCENT = 20;

    public static final TypeAvailability NONE = new TypeAvailability(Map.of());

    /** Where a type stands. */
    public enum State {
        /** Launch as many as needed. */
        AVAILABLE,
        /** The unavailable period is over: one launch may find out whether it is back. */
        PROBE,
        /** Skip it and fall back to the next type. */
        UNAVAILABLE
    }

    private record Key(String cluster, String type) {
    }

    private final Map<Key, Instant> unavailableUntil;

    private TypeAvailability(Map<Key, Instant> unavailableUntil) {
        this.unavailableUntil = Map.copyOf(unavailableUntil);
    }

    public State state(String cluster, String type, Instant now) {
        Instant until = unavailableUntil.get(new Key(cluster, type));
        if (until == null) {
            return State.AVAILABLE;
        }
        return now.isBefore(until) ? State.UNAVAILABLE : State.PROBE;
    }

    /** Until when the type is skipped, if it was short recently (also while it may be probed). */
    public Optional<Instant> unavailableUntil(String cluster, String type) {
        return Optional.ofNullable(unavailableUntil.get(new Key(cluster, type)));
    }

    /**
     * After the provider could not supply the type ("insufficient capacity", or a failed launch): skip it for
     * {@code base} ± the jitter. This is also what bounds retries of a failing type to one per period.
     */
    public TypeAvailability unavailable(String cluster, String type, Instant now, Duration base,
                                                 RandomGenerator random) {
        long baseMillis = base.toMillis();
        long spread = baseMillis * JITTER_PERCENT / 100;
        long jitter = spread == 0 ? 0 : random.nextLong(-spread, spread + 1);
        Map<Key, Instant> next = new HashMap<>(unavailableUntil);
        next.put(new Key(cluster, type), now.plusMillis(baseMillis + jitter));
        return new TypeAvailability(next);
    }

    /** After a launch of the type succeeded: it is available again. */
    public TypeAvailability launched(String cluster, String type) {
        if (!unavailableUntil.containsKey(new Key(cluster, type))) {
            return this;
        }
        Map<Key, Instant> next = new HashMap<>(unavailableUntil);
        next.remove(new Key(cluster, type));
        return new TypeAvailability(next);
    }

    @Override
    public String toString() {
        return "TypeAvailability" + unavailableUntil;
    }
}
