package dev.gantry.scheduler;

/** Where an instance is in its life, as far as placement cares. */
public enum InstanceState {
    /** Up and taking jobs. */
    READY,
    /** Asked for and not up yet: takes no job now, but counts for estimates from its expected ready time. */
    PROVISIONING,
    /** Finishing its running jobs before it is stopped: takes no new job and is never reserved. */
    DRAINING
}
