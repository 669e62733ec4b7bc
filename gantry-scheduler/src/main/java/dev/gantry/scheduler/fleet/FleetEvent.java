package dev.gantry.scheduler.fleet;

import java.time.Instant;
import java.util.Objects;

/**
 * Something the {@link FleetController} did or saw, for the server's log and API and for the simulator's trace.
 *
 * @param instanceId empty when the event concerns a type rather than one instance (a shortage)
 */
public record FleetEvent(Instant at, Kind kind, String cluster, String type, String instanceId, String message) {
    /** What happened. */
    public enum Kind {
        /** The provider accepted a launch. */
        LAUNCHED,
        /** The provider had none of a type: it is skipped for a while and the next type is tried at once. */
        INSUFFICIENT_CAPACITY,
        /** The provider failed a launch for another reason: the type rests like a short one, the next is tried. */
        LAUNCH_FAILED,
        /** An instance the fleet launched showed up ready, or came back after it was missing. */
        READY,
        /** An instance takes no new job and will be terminated once its running jobs are done. */
        DRAINING,
        /** An instance was stopped. */
        TERMINATED,
        /**
         * A ready or draining instance is missing from the snapshot (its agent died, or could not reach the server):
         * it is kept as it was, and replaced if it stays missing past the fleet's silence deadline.
         */
        MISSING,
        /** An instance stayed missing past the fleet's silence deadline; it is cleaned up (and replaced if needed). */
        LOST
    }

    public FleetEvent {
        Objects.requireNonNull(at, "at");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(cluster, "cluster");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(instanceId, "instanceId");
        Objects.requireNonNull(message, "message");
    }

    @Override
    public String toString() {
        return at + " " + kind + " " + cluster + "/" + type + (instanceId.isEmpty() ? "" : " " + instanceId) + ": "
                + message;
    }
}
