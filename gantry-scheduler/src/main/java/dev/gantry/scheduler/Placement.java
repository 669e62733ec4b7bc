package dev.gantry.scheduler;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Decides which pending jobs start where: a pure function of a {@link Snapshot}, with no I/O and no clock. The same
 * snapshot always gives the same decision.
 *
 * <p>The rules, in the order they apply (docs/scheduler.md has the reasoning):
 * <ol>
 *   <li>Jobs are considered oldest first, whatever their class (strict priority by age; ties by id).</li>
 *   <li>A job whose organisation runs as many jobs as its limit allows waits ({@link WaitReason#ORG_CONCURRENCY_LIMIT}).</li>
 *   <li>Otherwise it goes to the ready instance of its pool with room for it that leaves the least capacity stranded
 *       (best fit over vCPU, memory and disk, each as a fraction of the instance; ties to the smaller instance,
 *       then by instance id).</li>
 *   <li>The oldest job of a pool that fits nowhere reserves the instance expected to have room for it soonest.
 *       Younger jobs may use that instance only if their expected duration ends by the reservation's start
 *       (backfill); a job of unknown duration may not. This is what keeps large classes from starving behind a
 *       stream of small jobs.</li>
 * </ol>
 * Thread-safe: it holds no state. A call costs about O(instances) to set up plus, per job, a look at one instance
 * per distinct free capacity of its pool (docs/scheduler.md, <i>Cost</i>); {@code ReferencePlacement} in the tests
 * is the straight scan it must agree with.
 */
public final class Placement {
    private static final Comparator<PendingJob> OLDEST_FIRST =
            Comparator.comparing(PendingJob::enqueuedAt).thenComparing(PendingJob::id);
    private static final Comparator<Instance> BY_ID = Comparator.comparing(Instance::id);

    private Placement() {
    }

    /** The decision for {@code snapshot}: every pending job is either assigned or waiting with a reason. */
    public static Decision place(Snapshot snapshot) {
        return new Round(snapshot).run();
    }

    /**
     * The state of one call: what has been placed and reserved so far. The ready instances with room sit in a
     * {@link FreeIndex}, so best fit looks at one instance per distinct free capacity rather than at every instance;
     * per-pool counts ({@link PoolCensus}) and instances ordered by when a demand fits them ({@link FitOrder}) are
     * built on first need and kept up to date as jobs are placed.
     */
    private static final class Round {
        private final Snapshot snapshot;
        private final Instant now;
        private final WorkingInstance[] byOrdinal;
        private final FreeIndex free;
        /**
         * The organisations that have a limit (only they can wait on one): how many jobs each runs, placed ones
         * included, and the earliest expected end among them. A HashMap, because it compares hashes before strings,
         * while the immutable map of the limits compares the strings: it is looked up for every running job.
         */
        private final Map<String, OrgTally> limited = new HashMap<>();
        private final Map<String, Held> heldByPool = new HashMap<>();
        private final Map<String, PoolCensus> censusByPool = new HashMap<>();
        private final Map<String, Map<Resources, FitOrder>> fitOrdersByPool = new HashMap<>();
        private final List<Assignment> assignments = new ArrayList<>();
        private final List<Waiting> waiting = new ArrayList<>();
        private final List<Reservation> reservations = new ArrayList<>();

        private record Held(Reservation reservation, WorkingInstance instance) {
        }

        private static final class OrgTally {
            int running;
            Instant earliestEnd;

            void add(Optional<Instant> expectedEnd) {
                running++;
                if (expectedEnd.isPresent() && (earliestEnd == null || expectedEnd.get().isBefore(earliestEnd))) {
                    earliestEnd = expectedEnd.get();
                }
            }
        }

        Round(Snapshot snapshot) {
            this.snapshot = snapshot;
            this.now = snapshot.now();
            snapshot.limits().maxConcurrentJobs().keySet().forEach(org -> limited.put(org, new OrgTally()));
            Instance[] sorted = snapshot.instances().toArray(Instance[]::new);
            // Nearly free when the caller lists instances by id already: the sort is adaptive.
            Arrays.sort(sorted, BY_ID);
            byOrdinal = new WorkingInstance[sorted.length];
            // One pass over every running job, the largest part of a call's cost: free capacity and tallies together.
            for (int k = 0; k < sorted.length; k++) {
                Resources cap = sorted[k].type().capacity();
                int vcpu = cap.vcpu();
                int memoryMb = cap.memoryMb();
                int diskGb = cap.diskGb();
                for (RunningJob job : sorted[k].running()) {
                    Resources holds = job.holds();
                    vcpu -= holds.vcpu();
                    memoryMb -= holds.memoryMb();
                    diskGb -= holds.diskGb();
                    if (!limited.isEmpty()) {
                        OrgTally tally = limited.get(job.organization());
                        if (tally != null) {
                            tally.add(job.expectedEnd());
                        }
                    }
                }
                byOrdinal[k] = new WorkingInstance(sorted[k], k, new Resources(vcpu, memoryMb, diskGb));
            }
            free = new FreeIndex(byOrdinal);
        }

        Decision run() {
            PendingJob[] pending = snapshot.pending().toArray(PendingJob[]::new);
            Arrays.sort(pending, OLDEST_FIRST);
            for (PendingJob job : pending) {
                consider(job);
            }
            return new Decision(assignments, waiting, reservations);
        }

        private void consider(PendingJob job) {
            OptionalInt limit = snapshot.limits().limitOf(job.organization());
            OrgTally tally = limit.isPresent() ? limited.get(job.organization()) : null;
            if (tally != null && tally.running >= limit.getAsInt()) {
                // When one of its jobs is expected to end; an overrunning one counts as ending now.
                Optional<Instant> slotFreesAt = Optional.ofNullable(tally.earliestEnd)
                        .map(t -> t.isBefore(now) ? now : t);
                waiting.add(Explanations.orgLimit(job, tally.running, slotFreesAt));
                return;
            }
            Held held = heldByPool.get(job.pool());
            WorkingInstance excluded = held == null || endsBefore(job, held.reservation()) ? null : held.instance();
            WorkingInstance best = free.bestFit(job.pool(), job.demand(), excluded);
            if (best != null) {
                place(job, best, tally);
            } else {
                waiting.add(explainNoRoom(job, held));
            }
        }

        private void place(PendingJob job, WorkingInstance target, OrgTally tally) {
            Optional<Instant> expectedEnd = job.expectedDuration().map(now::plus);
            free.remove(target);
            target.place(job.demand(), job.organization(), expectedEnd);
            free.add(target);
            Map<Resources, FitOrder> fitOrders = fitOrdersByPool.get(target.pool());
            if (fitOrders != null) {
                fitOrders.values().forEach(f -> f.update(target));
            }
            if (tally != null) {
                tally.add(expectedEnd);
            }
            assignments.add(new Assignment(job.id(), target.id()));
        }

        /** Backfill: a younger job may use a held instance only if it is known to be gone when the holder is due. */
        private boolean endsBefore(PendingJob job, Reservation reservation) {
            return reservation.start().isPresent() && job.expectedDuration().isPresent()
                    && !now.plus(job.expectedDuration().get()).isAfter(reservation.start().get());
        }

        private Waiting explainNoRoom(PendingJob job, Held held) {
            PoolCensus census = censusByPool.computeIfAbsent(job.pool(), p -> new PoolCensus(p, byOrdinal));
            int bigEnough = census.bigEnough(job.demand());
            if (bigEnough == 0) {
                return Explanations.noInstanceLargeEnough(job, census.largest());
            }
            long provisioning = census.provisioning(job.demand());
            FitOrder fits = fitOrdersByPool.computeIfAbsent(job.pool(), p -> new HashMap<>())
                    .computeIfAbsent(job.demand(), d -> new FitOrder(job.pool(), d, now, byOrdinal));
            if (held == null) {
                FitOrder.Entry soonest = fits.soonest();
                Reservation r = new Reservation(job.id(), soonest.instance().id(), soonest.fit());
                heldByPool.put(job.pool(), new Held(r, soonest.instance()));
                reservations.add(r);
                return Explanations.noCapacity(job, r.start(), bigEnough, provisioning);
            }
            FitOrder.Entry other = fits.soonestExcept(held.instance());
            Optional<Instant> elsewhere = other == null ? Optional.empty() : other.fit();
            if (held.instance().hasRoomNow(job.demand())) {
                return Explanations.reservedForOlderJob(job, held.reservation(), elsewhere);
            }
            return Explanations.noCapacity(job, elsewhere, bigEnough, provisioning);
        }
    }
}
