package dev.gantry.scheduler.fleet;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * What the autoscaler knows of an instance it launched beyond what the snapshot says: the cluster it belongs to, when
 * it was launched and since when it has run no job. Instances of the snapshot without a member (an agent somebody started by hand) count
 * as capacity for placement but belong to no cluster and are never scaled in.
 *
 * @param idleSince since when it has been ready with no running job; empty while provisioning or busy
 * @param missing   it was up and is missing from the snapshot now: the controller shows it as provisioning until it is
 *                  back or its silence deadline replaces it, so the provision timeout, which is for instances that never
 *                  came up, does not apply
 */
public record Member(String instanceId, String cluster, Instant launchedAt, Optional<Instant> idleSince,
                     boolean missing) {
    public Member {
        Objects.requireNonNull(instanceId, "instanceId");
        Objects.requireNonNull(cluster, "cluster");
        Objects.requireNonNull(launchedAt, "launchedAt");
        Objects.requireNonNull(idleSince, "idleSince");
    }

    /** A member that is in the snapshot (or still starting). */
    public Member(String instanceId, String cluster, Instant launchedAt, Optional<Instant> idleSince) {
        this(instanceId, cluster, launchedAt, idleSince, false);
    }
}
