package dev.gantry.sim;

/** Which policies a run uses: Gantry's own (the server's classes) or the naive baseline. */
public enum PolicyKind {
    /** {@code Placement.place} and the {@code FleetController}, as in the server. */
    GANTRY,
    /** FIFO first-fit placement and a job-count autoscaler with a single instance type. */
    BASELINE
}
