package dev.gantry.scheduler;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The oracle for {@link Placement}: its rules as first written, a straight scan of every instance for every job
 * (O(jobs × instances)). {@code PlacementEquivalenceProperties} checks that the indexed {@link Placement} decides
 * exactly as this does. Change the rules here and there together; never optimise this copy.
 */
final class ReferencePlacement {
    private static final Comparator<PendingJob> OLDEST_FIRST =
            Comparator.comparing(PendingJob::enqueuedAt).thenComparing(PendingJob::id);

    private ReferencePlacement() {
    }

    /** The decision for {@code snapshot}: every pending job is either assigned or waiting with a reason. */
    static Decision place(Snapshot snapshot) {
        return new Round(snapshot).run();
    }

    /** The state of one call: what has been placed and reserved so far. */
    private static final class Round {
        private final Snapshot snapshot;
        private final Instant now;
        private final List<ReferenceInstance> instances = new ArrayList<>();
        private final Map<String, Integer> runningPerOrg = new HashMap<>();
        private final Map<String, Held> heldByPool = new HashMap<>();
        private final List<Assignment> assignments = new ArrayList<>();
        private final List<Waiting> waiting = new ArrayList<>();
        private final List<Reservation> reservations = new ArrayList<>();

        private record Held(Reservation reservation, ReferenceInstance instance) {
        }

        Round(Snapshot snapshot) {
            this.snapshot = snapshot;
            this.now = snapshot.now();
            snapshot.instances().stream()
                    .sorted(Comparator.comparing(Instance::id))
                    .forEach(i -> instances.add(new ReferenceInstance(i)));
            for (Instance i : snapshot.instances()) {
                for (RunningJob job : i.running()) {
                    runningPerOrg.merge(job.organization(), 1, Integer::sum);
                }
            }
        }

        Decision run() {
            snapshot.pending().stream().sorted(OLDEST_FIRST).forEach(this::consider);
            return new Decision(assignments, waiting, reservations);
        }

        private void consider(PendingJob job) {
            OptionalInt limit = snapshot.limits().limitOf(job.organization());
            int running = runningPerOrg.getOrDefault(job.organization(), 0);
            if (limit.isPresent() && running >= limit.getAsInt()) {
                waiting.add(Explanations.orgLimit(job, running, orgSlotFreesAt(job.organization())));
                return;
            }
            Held held = heldByPool.get(job.pool());
            Optional<ReferenceInstance> best = instances.stream()
                    .filter(i -> i.pool().equals(job.pool()) && i.hasRoomNow(job.demand()))
                    .filter(i -> held == null || i != held.instance() || endsBefore(job, held.reservation()))
                    .min(Comparator.comparingDouble((ReferenceInstance i) -> i.leftoverAfter(job.demand()))
                            .thenComparing(ReferenceInstance::capacity, Resources.SMALLEST_FIRST)
                            .thenComparing(ReferenceInstance::id));
            if (best.isPresent()) {
                best.get().place(job.demand(), job.organization(), job.expectedDuration().map(now::plus));
                runningPerOrg.merge(job.organization(), 1, Integer::sum);
                assignments.add(new Assignment(job.id(), best.get().id()));
            } else {
                waiting.add(explainNoRoom(job, held));
            }
        }

        /** Backfill: a younger job may use a held instance only if it is known to be gone when the holder is due. */
        private boolean endsBefore(PendingJob job, Reservation reservation) {
            return reservation.start().isPresent() && job.expectedDuration().isPresent()
                    && !now.plus(job.expectedDuration().get()).isAfter(reservation.start().get());
        }

        private Waiting explainNoRoom(PendingJob job, Held held) {
            List<ReferenceInstance> bigEnough = instances.stream()
                    .filter(i -> i.pool().equals(job.pool()) && i.couldEverHold(job.demand()))
                    .toList();
            if (bigEnough.isEmpty()) {
                return Explanations.noInstanceLargeEnough(job, largestIn(job.pool()));
            }
            long provisioning = bigEnough.stream().filter(i -> i.state() == InstanceState.PROVISIONING).count();
            if (held == null) {
                ReferenceInstance soonest = bigEnough.stream()
                        .min(Comparator.comparing((ReferenceInstance i) -> i.earliestFit(job.demand(), now),
                                        ReferencePlacement::unknownLast)
                                .thenComparing(ReferenceInstance::id))
                        .orElseThrow();
                Reservation r = new Reservation(job.id(), soonest.id(), soonest.earliestFit(job.demand(), now));
                heldByPool.put(job.pool(), new Held(r, soonest));
                reservations.add(r);
                return Explanations.noCapacity(job, r.start(), bigEnough.size(), provisioning);
            }
            Optional<Instant> elsewhere = bigEnough.stream()
                    .filter(i -> i != held.instance())
                    .map(i -> i.earliestFit(job.demand(), now))
                    .min(ReferencePlacement::unknownLast)
                    .flatMap(t -> t);
            if (held.instance().hasRoomNow(job.demand())) {
                return Explanations.reservedForOlderJob(job, held.reservation(), elsewhere);
            }
            return Explanations.noCapacity(job, elsewhere, bigEnough.size(), provisioning);
        }

        /** When one of the organisation's jobs is expected to end, or empty if none has an expected end. */
        private Optional<Instant> orgSlotFreesAt(String organization) {
            return instances.stream()
                    .flatMap(i -> i.occupants().stream())
                    .filter(o -> o.organization().equals(organization))
                    .flatMap(o -> o.expectedEnd().stream())
                    .min(Comparator.naturalOrder())
                    .map(t -> t.isBefore(now) ? now : t);
        }

        private Optional<Resources> largestIn(String pool) {
            return instances.stream()
                    .filter(i -> i.pool().equals(pool) && i.state() != InstanceState.DRAINING)
                    .map(ReferenceInstance::capacity)
                    .max(Comparator.comparingInt(Resources::vcpu).thenComparingInt(Resources::memoryMb));
        }
    }

    /** Known times first, earliest first; unknown last. */
    private static int unknownLast(Optional<Instant> a, Optional<Instant> b) {
        if (a.isPresent() && b.isPresent()) {
            return a.get().compareTo(b.get());
        }
        return Boolean.compare(a.isEmpty(), b.isEmpty());
    }
}
