package dev.gantry.scheduler;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A build machine and what it runs. Its free capacity is its type's minus what its running jobs hold.
 *
 * @param readyAt when a {@link InstanceState#PROVISIONING} instance is expected up, if the provider says; ignored in
 *                other states
 */
public record Instance(String id, InstanceType type, String pool, InstanceState state, List<RunningJob> running,
                       Optional<Instant> readyAt) {
    /** The pool of every job and instance that is not pinned elsewhere. */
    public static final String DEFAULT_POOL = "default";
    /** What a pool may be called (an agent's {@code --pool}, a pause's path): 1 to 63 of a-z, 0-9, '.', '_', '-'. */
    public static final Pattern POOL_NAME = Pattern.compile("[a-z0-9][a-z0-9_.-]{0,62}");

    public Instance {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(pool, "pool");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(readyAt, "readyAt");
        running = List.copyOf(running);
        Resources held = running.stream().map(RunningJob::holds).reduce(Resources.NONE, Resources::plus);
        if (!type.capacity().fits(held)) {
            throw new IllegalArgumentException("instance " + id + " runs jobs holding " + held + ", more than its "
                    + type.name() + " capacity of " + type.capacity());
        }
    }

    /** A ready instance in the default pool. */
    public static Instance ready(String id, InstanceType type, List<RunningJob> running) {
        return new Instance(id, type, DEFAULT_POOL, InstanceState.READY, running, Optional.empty());
    }

    /** What its running jobs leave free. */
    public Resources free() {
        Resources free = type.capacity();
        for (RunningJob job : running) {
            free = free.minus(job.holds());
        }
        return free;
    }
}
