package dev.gantry.scheduler;

import java.time.Instant;
import java.util.Comparator;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The instances of one pool that could ever hold one demand, ordered by when it is expected to fit on them (known
 * times first, earliest first, unknown last; ties by id). Answers "which instance frees up soonest", for the
 * reservation, and "when does room appear elsewhere", for estimates, without scoring every instance for every
 * waiting job. Built on first use in a {@link Placement#place} call and kept up to date as jobs are placed; lives for
 * that call on one thread.
 */
final class FitOrder {
    /** An instance and when the demand is expected to fit on it. */
    record Entry(Optional<Instant> fit, WorkingInstance instance) {
    }

    private static final Comparator<Entry> SOONEST_FIRST = Comparator
            .comparing(Entry::fit, FitOrder::unknownLast)
            .thenComparingInt(e -> e.instance().ordinal());

    private final Resources demand;
    private final Instant now;
    private final TreeSet<Entry> order = new TreeSet<>(SOONEST_FIRST);
    /** Each member's current entry, by ordinal; null for instances that are not members. */
    private final Entry[] entries;

    FitOrder(String pool, Resources demand, Instant now, WorkingInstance[] byOrdinal) {
        this.demand = demand;
        this.now = now;
        this.entries = new Entry[byOrdinal.length];
        for (WorkingInstance i : byOrdinal) {
            if (i.pool().equals(pool) && i.couldEverHold(demand)) {
                Entry e = new Entry(i.earliestFit(demand, now), i);
                entries[i.ordinal()] = e;
                order.add(e);
            }
        }
    }

    /** The member expected to fit the demand soonest, or null when there is none. */
    Entry soonest() {
        return order.isEmpty() ? null : order.first();
    }

    /** The member expected to fit the demand soonest other than {@code excluded}, or null when there is none. */
    Entry soonestExcept(WorkingInstance excluded) {
        for (Entry e : order) {
            if (e.instance() != excluded) {
                return e;
            }
        }
        return null;
    }

    /** Re-scores {@code instance} after a job was placed on it. */
    void update(WorkingInstance instance) {
        Entry old = entries[instance.ordinal()];
        if (old == null) {
            return;
        }
        order.remove(old);
        Entry e = new Entry(instance.earliestFit(demand, now), instance);
        entries[instance.ordinal()] = e;
        order.add(e);
    }

    /** Known times first, earliest first; unknown last. */
    static int unknownLast(Optional<Instant> a, Optional<Instant> b) {
        if (a.isPresent() && b.isPresent()) {
            return a.get().compareTo(b.get());
        }
        return Boolean.compare(a.isEmpty(), b.isEmpty());
    }
}
