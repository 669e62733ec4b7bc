package dev.gantry.scheduler;

/** Why a job was left pending by a decision. Machine-readable: the API and the queue insights group by it. */
public enum WaitReason {
    /** Instances big enough exist in its pool, but none has room now (some may be provisioning). */
    NO_CAPACITY,
    /** No instance in its pool, in any state, is big enough for its class: only a new instance can run it. */
    NO_INSTANCE_LARGE_ENOUGH,
    /** Its organisation already runs as many jobs as its limit allows. */
    ORG_CONCURRENCY_LIMIT,
    /**
     * It would fit on the instance held for an older job that fits nowhere yet, and it is not known to end before that
     * job is due to start there.
     */
    RESERVED_FOR_OLDER_JOB
}
