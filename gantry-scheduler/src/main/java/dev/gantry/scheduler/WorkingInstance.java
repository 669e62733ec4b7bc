package dev.gantry.scheduler;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * An instance as one {@link Placement#place} call sees it while it places jobs: its free capacity shrinks and its
 * list of jobs grows as jobs are assigned to it. Lives for one call on one thread; never escapes.
 *
 * <p>Cheap to make, since a call makes one per instance of the snapshot: the running jobs stay in the snapshot's
 * {@link Instance}, and only the jobs placed by this call are kept here.
 */
final class WorkingInstance {
    /** A job on the instance, running before the call or placed by it, and when it is expected to give back what it holds. */
    record Occupant(Resources holds, String organization, Optional<Instant> expectedEnd) {
    }

    private static final Comparator<Occupant> BY_EXPECTED_END =
            Comparator.comparing(o -> o.expectedEnd().orElseThrow());

    private final Instance instance;
    /** Rank of the id among the snapshot's instances: comparing ordinals compares ids. */
    private final int ordinal;
    /** Null until a job is placed here: most instances never get one in a call. */
    private List<Occupant> placed;
    private Resources free;

    /** {@code free} is the instance's capacity minus what its running jobs hold, which the caller sums. */
    WorkingInstance(Instance instance, int ordinal, Resources free) {
        this.instance = instance;
        this.ordinal = ordinal;
        this.free = free;
    }

    String id() {
        return instance.id();
    }

    int ordinal() {
        return ordinal;
    }

    String pool() {
        return instance.pool();
    }

    InstanceState state() {
        return instance.state();
    }

    Resources capacity() {
        return instance.type().capacity();
    }

    Resources free() {
        return free;
    }

    /** The jobs that were running when the snapshot was taken. */
    List<RunningJob> running() {
        return instance.running();
    }

    /** The jobs this call has placed here so far. */
    List<Occupant> placed() {
        return placed == null ? List.of() : placed;
    }

    /** Could take {@code demand} right now. */
    boolean hasRoomNow(Resources demand) {
        return instance.state() == InstanceState.READY && free.fits(demand);
    }

    /** Could ever run a job of this size: big enough, and not on its way out. */
    boolean couldEverHold(Resources demand) {
        return instance.state() != InstanceState.DRAINING && capacity().fits(demand);
    }

    void place(Resources demand, String organization, Optional<Instant> expectedEnd) {
        free = free.minus(demand);
        if (placed == null) {
            placed = new ArrayList<>(2);
        }
        placed.add(new Occupant(demand, organization, expectedEnd));
    }

    /**
     * How much capacity placing {@code demand} would strand: the free fraction left in each dimension, summed. Lower
     * is a tighter fit; an empty instance scores highest, so partly used ones fill first and empty ones stay whole for
     * large jobs.
     */
    double leftoverAfter(Resources demand) {
        Resources cap = capacity();
        return (double) (free.vcpu() - demand.vcpu()) / cap.vcpu()
                + (double) (free.memoryMb() - demand.memoryMb()) / cap.memoryMb()
                + (double) (free.diskGb() - demand.diskGb()) / cap.diskGb();
    }

    /**
     * The earliest moment {@code demand} is expected to fit, never before {@code now}; empty when it cannot be said
     * (a provisioning instance without an expected ready time, or jobs with no expected end would have to leave first).
     * Assumes nothing more is placed here in between.
     */
    Optional<Instant> earliestFit(Resources demand, Instant now) {
        if (!couldEverHold(demand)) {
            return Optional.empty();
        }
        if (instance.state() == InstanceState.PROVISIONING) {
            return instance.readyAt().map(t -> latest(t, now));
        }
        if (free.fits(demand)) {
            return Optional.of(now);
        }
        Occupant[] ending = endingOccupants();
        Arrays.sort(ending, BY_EXPECTED_END);
        int vcpu = free.vcpu();
        int memoryMb = free.memoryMb();
        int diskGb = free.diskGb();
        for (Occupant o : ending) {
            vcpu += o.holds().vcpu();
            memoryMb += o.holds().memoryMb();
            diskGb += o.holds().diskGb();
            if (demand.vcpu() <= vcpu && demand.memoryMb() <= memoryMb && demand.diskGb() <= diskGb) {
                return Optional.of(latest(o.expectedEnd().orElseThrow(), now));
            }
        }
        return Optional.empty();
    }

    /** Running and placed jobs with an expected end, unsorted. */
    private Occupant[] endingOccupants() {
        List<Occupant> ending = new ArrayList<>(instance.running().size() + placed().size());
        for (RunningJob job : instance.running()) {
            if (job.expectedEnd().isPresent()) {
                ending.add(new Occupant(job.holds(), job.organization(), job.expectedEnd()));
            }
        }
        for (Occupant o : placed()) {
            if (o.expectedEnd().isPresent()) {
                ending.add(o);
            }
        }
        return ending.toArray(Occupant[]::new);
    }

    private static Instant latest(Instant a, Instant b) {
        return a.isAfter(b) ? a : b;
    }
}
