package dev.gantry.sim;

import dev.gantry.scheduler.Assignment;
import dev.gantry.scheduler.Decision;
import dev.gantry.scheduler.Instance;
import dev.gantry.scheduler.InstanceState;
import dev.gantry.scheduler.PendingJob;
import dev.gantry.scheduler.Resources;
import dev.gantry.scheduler.Snapshot;
import dev.gantry.scheduler.WaitReason;
import dev.gantry.scheduler.Waiting;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The naive placement Gantry is compared with: jobs oldest first, each on the first ready instance of its pool (in
 * the snapshot's order) with room for it; a job that fits nowhere is skipped and younger ones go ahead. No best fit,
 * no reservation: a large job keeps losing the room freed by small ones to the small jobs behind it, which is how the
 * October 21 incident's 2xlarge jobs starved. Pure and stateless, like {@code Placement}.
 */
final class FifoFirstFit {
    private FifoFirstFit() {
    }

    static Decision place(Snapshot snapshot) {
        List<Instance> ready = snapshot.instances().stream().filter(i -> i.state() == InstanceState.READY).toList();
        List<Resources> free = new ArrayList<>(ready.stream().map(Instance::free).toList());
        List<Assignment> assignments = new ArrayList<>();
        List<Waiting> waiting = new ArrayList<>();
        List<PendingJob> pending = snapshot.pending().stream()
                .sorted(Comparator.comparing(PendingJob::enqueuedAt).thenComparing(PendingJob::id)).toList();
        for (PendingJob job : pending) {
            int chosen = -1;
            for (int i = 0; i < ready.size() && chosen < 0; i++) {
                if (ready.get(i).pool().equals(job.pool()) && free.get(i).fits(job.demand())) {
                    chosen = i;
                }
            }
            if (chosen >= 0) {
                free.set(chosen, free.get(chosen).minus(job.demand()));
                assignments.add(new Assignment(job.id(), ready.get(chosen).id()));
            } else {
                waiting.add(new Waiting(job.id(), WaitReason.NO_CAPACITY, Optional.empty(),
                        "no ready instance of pool " + job.pool() + " has room"));
            }
        }
        return new Decision(assignments, waiting, List.of());
    }
}
