package dev.gantry.scheduler;

import static dev.gantry.scheduler.Fleet.at;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * A large job does not starve behind a stream of small ones. A 2xlarge job (a whole 16-vCPU instance) waits on a busy
 * fleet while small, medium and large jobs keep arriving, most short enough to backfill, some of unknown length. The
 * first decision reserves an instance for it from some time T (when that instance's running jobs are expected to
 * end); driving time forward and applying every decision, the large job must have started by T. Running jobs end
 * exactly when expected, so T is a promise the scheduler can keep.
 */
class StarvationProperties {
    private static final List<ResourceClass> STREAM_CLASSES =
            List.of(Fleet.SMALL, Fleet.MEDIUM, Fleet.CLASSES.get("medium+"), Fleet.LARGE);
    private static final ResourceClass BIG = Fleet.CLASSES.get("2xlarge");

    /** A job on an instance in the simulation; {@code actualEnd} is known to the test, not always to the scheduler. */
    private record SimJob(String id, Resources holds, Optional<Instant> expectedEnd, Instant actualEnd) {
        RunningJob asRunning() {
            return new RunningJob(id, holds, "org", expectedEnd);
        }
    }

    @Property(tries = 200)
    void a_large_job_starts_by_the_time_its_reserved_instance_was_expected_to_free_up(
            @ForAll @IntRange(min = 1, max = 4) int instanceCount, @ForAll long seed) {
        Random random = new Random(seed);
        Map<String, List<SimJob>> fleet = new LinkedHashMap<>();
        for (int i = 0; i < instanceCount; i++) {
            List<SimJob> jobs = new ArrayList<>();
            int free = 16;
            for (int k = 0; free > 0 && k < 8; k++) {
                ResourceClass c = k == 0 ? Fleet.XLARGE : STREAM_CLASSES.get(random.nextInt(STREAM_CLASSES.size()));
                if (c.vcpu() <= free) {
                    Instant end = at(1 + random.nextInt(120));
                    jobs.add(new SimJob("i" + i + "-r" + k, c.demand(), Optional.of(end), end));
                    free -= c.vcpu();
                }
            }
            fleet.put("i" + i, jobs);
        }
        List<PendingJob> pending = new ArrayList<>(List.of(new PendingJob("big", BIG, "org", at(-1))));

        Instant now = at(0);
        Decision d = Placement.place(snapshot(fleet, pending, now));
        if (started(d)) {
            return;
        }
        Instant promised = d.reservations().getFirst().start().orElseThrow();
        apply(d, fleet, pending, now, random);

        int arrivals = 0;
        while (true) {
            Instant step = now.plus(Duration.ofMinutes(1 + random.nextInt(5)));
            now = step.isAfter(promised) ? promised : step;
            Instant t = now;
            fleet.values().forEach(jobs -> jobs.removeIf(j -> !j.actualEnd().isAfter(t)));
            for (int n = random.nextInt(7); n > 0; n--) {
                PendingJob small = new PendingJob("s" + arrivals++, STREAM_CLASSES.get(random.nextInt(4)), "org", now);
                // Mostly short enough to backfill, some long, some of unknown length.
                int kind = random.nextInt(10);
                pending.add(kind < 6 ? small.expecting(Duration.ofMinutes(1 + random.nextInt(15)))
                        : kind < 8 ? small.expecting(Duration.ofMinutes(60 + random.nextInt(120))) : small);
            }
            d = Placement.place(snapshot(fleet, pending, now));
            if (started(d)) {
                assertThat(now).isBeforeOrEqualTo(promised);
                return;
            }
            assertThat(now).as("the large job was promised %s and still waits: %s", promised, d.waiting().getFirst())
                    .isBefore(promised);
            apply(d, fleet, pending, now, random);
        }
    }

    private static boolean started(Decision d) {
        return d.assignments().stream().anyMatch(a -> a.jobId().equals("big"));
    }

    private static Snapshot snapshot(Map<String, List<SimJob>> fleet, List<PendingJob> pending, Instant now) {
        List<Instance> instances = new ArrayList<>();
        fleet.forEach((id, jobs) -> instances.add(Instance.ready(id, Fleet.M16,
                jobs.stream().map(SimJob::asRunning).toList())));
        return new Snapshot(pending, instances, OrgLimits.NONE, now);
    }

    private static void apply(Decision d, Map<String, List<SimJob>> fleet, List<PendingJob> pending, Instant now,
                              Random random) {
        for (Assignment a : d.assignments()) {
            PendingJob job = pending.stream().filter(p -> p.id().equals(a.jobId())).findFirst().orElseThrow();
            pending.remove(job);
            Optional<Instant> expectedEnd = job.expectedDuration().map(now::plus);
            Instant actualEnd = expectedEnd.orElse(now.plus(Duration.ofMinutes(1 + random.nextInt(180))));
            fleet.get(a.instanceId()).add(new SimJob(job.id(), job.demand(), expectedEnd, actualEnd));
        }
    }
}
