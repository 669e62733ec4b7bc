package dev.gantry.scheduler.fleet;

import dev.gantry.scheduler.InstanceType;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Starts and stops build instances: local processes, a simulated cloud, later Kubernetes or a cloud API. Kept small
 * on purpose; the {@link FleetController} decides what to ask for and keeps the state, and what to do with the
 * instances a previous server {@linkplain #leftBehind left behind}.
 *
 * <p>Readiness is not part of the contract: an instance is up when its agent registers with the server under the
 * instance id (the simulator asks {@link SimulatedProvider#readyBy} instead). Implementations must not block for
 * long in either method: the controller calls them from the scheduling loop.
 */
public interface FleetProvider {
    /** Asks for one instance of {@code type} in {@code cluster}, to be known as {@code instanceId}. */
    LaunchResult launch(String cluster, InstanceType type, String instanceId);

    /** Stops the instance and whatever runs on it; returns without waiting. Unknown or stopped ids are ignored. */
    void terminate(String instanceId);

    /**
     * Instances a previous server left running (it was killed before it could stop them) that this provider can
     * still {@link #terminate}; asked once, on the controller's first tick. None by default.
     */
    default List<LeftBehind> leftBehind() {
        return List.of();
    }

    /** An instance a previous server launched as {@code instanceId}, of {@code type} in {@code cluster}. */
    record LeftBehind(String instanceId, String cluster, String type) {
        public LeftBehind {
            Objects.requireNonNull(instanceId, "instanceId");
            Objects.requireNonNull(cluster, "cluster");
            Objects.requireNonNull(type, "type");
        }
    }

    /** What the provider answered to a launch. */
    sealed interface LaunchResult {
        /** It is on its way; {@code expectedReadyAt} is the provider's estimate, if it has one. */
        record Launched(Optional<Instant> expectedReadyAt) implements LaunchResult {
            public Launched {
                Objects.requireNonNull(expectedReadyAt, "expectedReadyAt");
            }
        }

        /** The provider has none of this type in this cluster for now: try the next type, re-probe later. */
        record InsufficientCapacity(String detail) implements LaunchResult {
        }

        /** Anything else went wrong (quota, API error, a command that would not start). */
        record Failed(String reason) implements LaunchResult {
        }
    }
}
