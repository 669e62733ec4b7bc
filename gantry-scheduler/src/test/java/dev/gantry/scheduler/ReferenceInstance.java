package dev.gantry.scheduler;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * An instance as {@link ReferencePlacement} sees it while it places jobs: the original {@code WorkingInstance},
 * kept as the oracle's. Lives for one call on one thread.
 */
final class ReferenceInstance {
    /** A job on the instance, running before the call or placed by it, and when it is expected to give back what it holds. */
    record Occupant(Resources holds, String organization, Optional<Instant> expectedEnd) {
    }

    private final Instance instance;
    private final List<Occupant> occupants = new ArrayList<>();
    private Resources free;

    ReferenceInstance(Instance instance) {
        this.instance = instance;
        this.free = instance.free();
        for (RunningJob job : instance.running()) {
            occupants.add(new Occupant(job.holds(), job.organization(), job.expectedEnd()));
        }
    }

    String id() {
        return instance.id();
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

    List<Occupant> occupants() {
        return occupants;
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
        occupants.add(new Occupant(demand, organization, expectedEnd));
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
        List<Occupant> ending = occupants.stream()
                .filter(o -> o.expectedEnd().isPresent())
                .sorted(Comparator.comparing(o -> o.expectedEnd().orElseThrow()))
                .toList();
        Resources freed = free;
        for (Occupant o : ending) {
            freed = freed.plus(o.holds());
            if (freed.fits(demand)) {
                return Optional.of(latest(o.expectedEnd().orElseThrow(), now));
            }
        }
        return Optional.empty();
    }

    private static Instant latest(Instant a, Instant b) {
        return a.isAfter(b) ? a : b;
    }
}
