package dev.gantry.scheduler;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The ready instances with room, indexed for best fit: per pool, per capacity, per exact free capacity, the set of
 * instances (by ordinal, so the first is the smallest id). Instances with the same capacity and the same free
 * capacity strand exactly the same fraction for any job, so best fit only has to score one instance per distinct
 * free capacity, the one with the smallest id, rather than every instance. How many distinct free capacities there
 * are depends on the resource classes, not on the number of instances: a 16-vCPU type running default classes has
 * at most 16. The result does not depend on the order the free capacities are looked at in, since equal scores are
 * broken by capacity, then by id.
 *
 * <p>An instance leaves the index when any dimension of its free capacity reaches zero, since every class demands
 * some of each. Lives for one {@link Placement#place} call on one thread.
 */
final class FreeIndex {
    /** Instances of one capacity in one pool, grouped by free capacity. */
    private record Group(Resources capacity, Map<Resources, BitSet> byFree) {
    }

    private final WorkingInstance[] byOrdinal;
    private final Map<String, List<Group>> groupsByPool = new HashMap<>();
    private Group last;
    private String lastPool;

    /** Indexes the ready instances of {@code byOrdinal} that have room for something. */
    FreeIndex(WorkingInstance[] byOrdinal) {
        this.byOrdinal = byOrdinal;
        for (WorkingInstance i : byOrdinal) {
            add(i);
        }
    }

    /**
     * The instance of {@code pool} with room for {@code demand} that strands the least capacity, ties to the smaller
     * instance (it strands less in absolute terms), then by id; {@code excluded} (the instance held for an older job,
     * or null) is passed over. Null when none has room.
     */
    WorkingInstance bestFit(String pool, Resources demand, WorkingInstance excluded) {
        List<Group> groups = groupsByPool.get(pool);
        if (groups == null) {
            return null;
        }
        int skip = excluded == null ? -1 : excluded.ordinal();
        WorkingInstance best = null;
        double bestLeftover = 0;
        for (Group g : groups) {
            if (!g.capacity().fits(demand)) {
                continue;
            }
            for (Map.Entry<Resources, BitSet> e : g.byFree().entrySet()) {
                if (!e.getKey().fits(demand)) {
                    continue;
                }
                BitSet members = e.getValue();
                int ordinal = members.nextSetBit(0);
                if (ordinal == skip) {
                    ordinal = members.nextSetBit(ordinal + 1);
                }
                if (ordinal < 0) {
                    continue;
                }
                WorkingInstance candidate = byOrdinal[ordinal];
                double leftover = candidate.leftoverAfter(demand);
                int order = best == null ? -1 : Double.compare(leftover, bestLeftover);
                if (order == 0) {
                    order = Resources.SMALLEST_FIRST.compare(g.capacity(), best.capacity());
                }
                if (order < 0 || order == 0 && ordinal < best.ordinal()) {
                    best = candidate;
                    bestLeftover = leftover;
                }
            }
        }
        return best;
    }

    /** Takes {@code instance} out before its free capacity changes; {@link #add} puts it back after. */
    void remove(WorkingInstance instance) {
        if (!indexable(instance)) {
            return;
        }
        Map<Resources, BitSet> byFree = group(instance).byFree();
        BitSet members = byFree.get(instance.free());
        members.clear(instance.ordinal());
        if (members.isEmpty()) {
            byFree.remove(instance.free());
        }
    }

    void add(WorkingInstance instance) {
        if (!indexable(instance)) {
            return;
        }
        group(instance).byFree().computeIfAbsent(instance.free(), f -> new BitSet()).set(instance.ordinal());
    }

    private static boolean indexable(WorkingInstance instance) {
        Resources free = instance.free();
        return instance.state() == InstanceState.READY && free.vcpu() > 0 && free.memoryMb() > 0 && free.diskGb() > 0;
    }

    private Group group(WorkingInstance instance) {
        // Consecutive instances are usually of the same pool and type.
        if (last != null && last.capacity().equals(instance.capacity()) && lastPool.equals(instance.pool())) {
            return last;
        }
        last = findOrAddGroup(instance);
        lastPool = instance.pool();
        return last;
    }

    private Group findOrAddGroup(WorkingInstance instance) {
        List<Group> groups = groupsByPool.computeIfAbsent(instance.pool(), p -> new ArrayList<>(2));
        for (Group g : groups) {
            if (g.capacity().equals(instance.capacity())) {
                return g;
            }
        }
        Group g = new Group(instance.capacity(), new HashMap<>());
        groups.add(g);
        return g;
    }
}
