package dev.gantry.scheduler;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What the waiting messages say about a pool and never changes during a {@link Placement#place} call: how many of
 * its instances are big enough for a demand and how many of those are provisioning (counted per capacity, so a
 * question costs the number of instance types, not of instances), and its largest capacity. Draining instances count
 * for nothing. Lives for one call on one thread.
 */
final class PoolCensus {
    private static final class Tally {
        final Resources capacity;
        int bigEnough;
        int provisioning;

        Tally(Resources capacity) {
            this.capacity = capacity;
        }
    }

    private final List<Tally> tallies = new ArrayList<>(2);
    private Resources largest;

    /** The census of {@code pool} among {@code byOrdinal}, which is in id order. */
    PoolCensus(String pool, WorkingInstance[] byOrdinal) {
        for (WorkingInstance i : byOrdinal) {
            if (!i.pool().equals(pool) || i.state() == InstanceState.DRAINING) {
                continue;
            }
            tally(i.capacity()).bigEnough++;
            if (i.state() == InstanceState.PROVISIONING) {
                tally(i.capacity()).provisioning++;
            }
            // Largest by vCPU then memory; on a tie the first in id order stays, as Stream.max would keep it.
            if (largest == null || Integer.compare(largest.vcpu(), i.capacity().vcpu()) < 0
                    || largest.vcpu() == i.capacity().vcpu() && largest.memoryMb() < i.capacity().memoryMb()) {
                largest = i.capacity();
            }
        }
    }

    /** Instances, ready or provisioning, whose capacity fits {@code demand}. */
    int bigEnough(Resources demand) {
        int n = 0;
        for (Tally t : tallies) {
            if (t.capacity.fits(demand)) {
                n += t.bigEnough;
            }
        }
        return n;
    }

    /** Of {@link #bigEnough}, how many are provisioning. */
    int provisioning(Resources demand) {
        int n = 0;
        for (Tally t : tallies) {
            if (t.capacity.fits(demand)) {
                n += t.provisioning;
            }
        }
        return n;
    }

    /** The largest capacity of an instance that is up or starting, or empty when there is none. */
    Optional<Resources> largest() {
        return Optional.ofNullable(largest);
    }

    private Tally tally(Resources capacity) {
        for (Tally t : tallies) {
            if (t.capacity.equals(capacity)) {
                return t;
            }
        }
        Tally t = new Tally(capacity);
        tallies.add(t);
        return t;
    }
}
