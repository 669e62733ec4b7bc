package dev.gantry.sim;

import dev.gantry.scheduler.Decision;
import dev.gantry.scheduler.Snapshot;
import java.util.List;

/**
 * The policies a simulation runs: where pending jobs start, and how the fleet changes. {@link GantryPolicy} is the
 * server's own classes; {@link BaselinePolicy} is the naive one they are compared with. Called from the event loop
 * only, the way the server's scheduling loop calls the real ones.
 */
interface Policy {
    /** The name printed in reports: {@code gantry} or {@code baseline}. */
    String name();

    /** {@code observed} as placement should see it (with instances provisioning or draining marked). */
    Snapshot overlay(Snapshot observed);

    /** Which pending jobs of {@code snapshot} start where. */
    Decision place(Snapshot snapshot);

    /** One round of autoscaling against {@code observed}; returns what happened, one line an event. */
    List<String> tick(Snapshot observed);
}
