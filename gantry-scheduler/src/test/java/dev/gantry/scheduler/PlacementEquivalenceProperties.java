package dev.gantry.scheduler;

import static dev.gantry.scheduler.Fleet.at;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * The indexed {@link Placement} decides exactly as {@link ReferencePlacement}, the straight scan it replaced: same
 * assignments, same waiting jobs with the same reasons, estimates and messages, same reservations. Snapshots are
 * random and deliberately crowded with ties: many instances of few types (equal best-fit scores, broken by id),
 * memory-heavy types and jobs holding odd amounts, several pools, provisioning and draining instances, organisation
 * limits, running jobs of known, unknown and overrun length, and pending jobs that do not fit anywhere (so that
 * reservations, backfill and every reason show up). A second property replays a short churn so that later snapshots
 * carry what earlier decisions placed.
 */
class PlacementEquivalenceProperties {
    private static final List<ResourceClass> CLASSES = Fleet.CLASSES.all();
    private static final List<InstanceType> TYPES = List.of(Fleet.type("m4", 4), Fleet.M8, Fleet.M16, Fleet.M16,
            new InstanceType("mem-heavy", new Resources(4, 65536, 100)), Fleet.type("m24", 24));
    private static final List<String> POOLS = List.of(Instance.DEFAULT_POOL, Instance.DEFAULT_POOL, "macos", "gpu");
    private static final List<String> ORGS = List.of("acme", "globex", "initech", "umbrella");

    @Property(tries = 400)
    void the_indexed_placement_decides_exactly_as_the_reference(@ForAll long seed,
                                                                 @ForAll @IntRange(min = 1, max = 60) int instances,
                                                                 @ForAll @IntRange(min = 0, max = 80) int jobs) {
        Snapshot s = randomSnapshot(new Random(seed), instances, jobs);

        assertThat(Placement.place(s)).isEqualTo(ReferencePlacement.place(s));
    }

    /** Rounds a minute apart: jobs end, new ones arrive, and each decision is carried out before the next round. */
    @Property(tries = 60)
    void the_two_agree_round_after_round_under_churn(@ForAll long seed) {
        Random random = new Random(seed);
        Snapshot s = randomSnapshot(random, 30, 40);
        for (int round = 0; round < 15; round++) {
            Decision d = Placement.place(s);
            assertThat(d).as("round %d", round).isEqualTo(ReferencePlacement.place(s));
            s = next(s, d, random);
        }
    }

    private static Snapshot randomSnapshot(Random random, int instanceCount, int jobCount) {
        List<Instance> instances = new ArrayList<>();
        for (int i = 0; i < instanceCount; i++) {
            InstanceType type = TYPES.get(random.nextInt(TYPES.size()));
            String pool = POOLS.get(random.nextInt(POOLS.size()));
            InstanceState state = random.nextInt(10) < 7 ? InstanceState.READY
                    : random.nextBoolean() ? InstanceState.PROVISIONING : InstanceState.DRAINING;
            List<RunningJob> running = new ArrayList<>();
            Resources free = type.capacity();
            int tries = state == InstanceState.PROVISIONING ? 0 : random.nextInt(10);
            for (int k = 0; k < tries; k++) {
                Resources holds = random.nextInt(8) == 0
                        ? new Resources(1 + random.nextInt(2), 1000 + random.nextInt(20_000), 1 + random.nextInt(30))
                        : CLASSES.get(random.nextInt(CLASSES.size())).demand();
                if (free.fits(holds)) {
                    running.add(new RunningJob("i" + i + "-r" + k, holds, ORGS.get(random.nextInt(ORGS.size())),
                            randomEnd(random)));
                    free = free.minus(holds);
                }
            }
            Optional<Instant> readyAt = random.nextBoolean() ? Optional.of(at(random.nextInt(10) - 2))
                    : Optional.empty();
            // Ids with a shared prefix and varying length, so that their order is not their creation order.
            instances.add(new Instance("i" + random.nextInt(1000) + "-" + i, type, pool, state, running, readyAt));
        }
        List<PendingJob> pending = new ArrayList<>();
        for (int j = 0; j < jobCount; j++) {
            pending.add(randomJob(random, "j" + j, at(-random.nextInt(60))));
        }
        Map<String, Integer> limits = new HashMap<>();
        for (String org : ORGS) {
            if (random.nextInt(3) == 0) {
                limits.put(org, random.nextInt(12));
            }
        }
        return new Snapshot(pending, instances, new OrgLimits(limits), at(0));
    }

    private static PendingJob randomJob(Random random, String id, Instant enqueuedAt) {
        PendingJob job = new PendingJob(id, CLASSES.get(random.nextInt(CLASSES.size())),
                ORGS.get(random.nextInt(ORGS.size())), enqueuedAt, POOLS.get(random.nextInt(POOLS.size())),
                Optional.empty());
        return random.nextInt(4) == 0 ? job : job.expecting(Duration.ofMinutes(random.nextInt(90)));
    }

    /** Known ends, some already past (an overrun), or unknown. */
    private static Optional<Instant> randomEnd(Random random) {
        return random.nextInt(4) == 0 ? Optional.empty() : Optional.of(at(random.nextInt(100) - 10));
    }

    /** The snapshot a minute later: the decision carried out, jobs past their end gone, a few new arrivals. */
    private static Snapshot next(Snapshot s, Decision d, Random random) {
        Instant now = s.now().plus(Duration.ofMinutes(1));
        Map<String, PendingJob> pendingById = new HashMap<>();
        s.pending().forEach(p -> pendingById.put(p.id(), p));
        Map<String, List<RunningJob>> started = new HashMap<>();
        for (Assignment a : d.assignments()) {
            PendingJob job = pendingById.remove(a.jobId());
            started.computeIfAbsent(a.instanceId(), k -> new ArrayList<>()).add(new RunningJob(job.id(), job.demand(),
                    job.organization(), job.expectedDuration().map(s.now()::plus)));
        }
        List<Instance> instances = new ArrayList<>();
        for (Instance i : s.instances()) {
            List<RunningJob> running = new ArrayList<>();
            for (RunningJob r : i.running()) {
                // Jobs end at their expected end, or now and then early; unknown ones end at random.
                boolean ends = r.expectedEnd().map(t -> !t.isAfter(now)).orElse(random.nextInt(10) == 0)
                        || random.nextInt(20) == 0;
                if (!ends) {
                    running.add(r);
                }
            }
            running.addAll(started.getOrDefault(i.id(), List.of()));
            InstanceState state = i.state() == InstanceState.PROVISIONING && random.nextInt(3) == 0
                    ? InstanceState.READY : i.state();
            instances.add(new Instance(i.id(), i.type(), i.pool(), state, running, i.readyAt()));
        }
        List<PendingJob> pending = new ArrayList<>(pendingById.values());
        int arrivals = random.nextInt(8);
        for (int k = 0; k < arrivals; k++) {
            pending.add(randomJob(random, "n" + now.getEpochSecond() + "-" + k, now));
        }
        return new Snapshot(pending, instances, s.limits(), now);
    }
}
