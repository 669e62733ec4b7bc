package dev.gantry.scheduler;

import java.util.List;

/**
 * What {@link Placement#place} decided for one snapshot: jobs to start, every other pending job with its reason, and
 * the instances held for old jobs. Every pending job of the snapshot appears exactly once, in assignments or in
 * waiting; both lists are in the order the jobs were considered (oldest first).
 */
public record Decision(List<Assignment> assignments, List<Waiting> waiting, List<Reservation> reservations) {
    public Decision {
        assignments = List.copyOf(assignments);
        waiting = List.copyOf(waiting);
        reservations = List.copyOf(reservations);
    }
}
