package dev.gantry.scheduler;

import static dev.gantry.scheduler.Fleet.LARGE;
import static dev.gantry.scheduler.Fleet.M16;
import static dev.gantry.scheduler.Fleet.M8;
import static dev.gantry.scheduler.Fleet.MEDIUM;
import static dev.gantry.scheduler.Fleet.SMALL;
import static dev.gantry.scheduler.Fleet.XLARGE;
import static dev.gantry.scheduler.Fleet.at;
import static dev.gantry.scheduler.Fleet.job;
import static dev.gantry.scheduler.Fleet.ready;
import static dev.gantry.scheduler.Fleet.running;
import static dev.gantry.scheduler.Fleet.runningForever;
import static dev.gantry.scheduler.Fleet.snapshot;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PlacementTest {
    private static final ResourceClass TWO_XLARGE = Fleet.CLASSES.get("2xlarge");

    @Test
    void a_job_goes_where_it_strands_the_least_capacity() {
        Decision d = Placement.place(snapshot(List.of(
                        ready("a-half-full", M16, runningForever("r1", XLARGE)),
                        ready("b-empty", M16),
                        ready("c-small-empty", M8)),
                job("j", LARGE, -1)));

        assertThat(d.assignments()).containsExactly(new Assignment("j", "a-half-full"));
        assertThat(d.waiting()).isEmpty();
    }

    @Test
    void memory_counts_as_much_as_vcpu() {
        RunningJob memoryHog = new RunningJob("hog", new Resources(1, 30_000, 10), "org", Optional.empty());
        Decision d = Placement.place(snapshot(List.of(ready("a-no-memory", M16, memoryHog), ready("b", M16)),
                job("j", MEDIUM, -1)));

        assertThat(d.assignments()).containsExactly(new Assignment("j", "b"));
    }

    /**
     * A medium job strands a quarter of either instance: 1 of 4 vCPUs on the first, 2 of 8 on the second. Taking the
     * smaller one keeps 4 vCPUs together for the large job, whatever the instances are called.
     */
    @Test
    void a_tie_goes_to_the_smaller_instance_so_names_do_not_decide_the_packing() {
        for (String[] names : List.of(new String[] {"a", "b"}, new String[] {"b", "a"})) {
            Decision d = Placement.place(snapshot(List.of(
                            ready(names[0] + "-8", M8, runningForever("r1", LARGE)),
                            ready(names[1] + "-4", Fleet.type("m4", 4), runningForever("r2", SMALL))),
                    job("medium", MEDIUM, -2), job("large", LARGE, -1)));

            assertThat(d.assignments()).containsExactlyInAnyOrder(new Assignment("medium", names[1] + "-4"),
                    new Assignment("large", names[0] + "-8"));
        }
    }

    @Test
    void the_oldest_job_goes_first_whatever_its_class() {
        List<Instance> fourFree = List.of(ready("a", M8, runningForever("r1", LARGE)));

        Decision largeFirst = Placement.place(snapshot(fourFree, job("tiny", SMALL, -5), job("big", LARGE, -10)));
        assertThat(largeFirst.assignments()).containsExactly(new Assignment("big", "a"));
        assertThat(largeFirst.waiting()).extracting(Waiting::jobId, Waiting::reason)
                .containsExactly(tuple("tiny", WaitReason.NO_CAPACITY));
    }

    /**
     * Instance b (16 vCPU) has 6 free and its xlarge job ends at minute 40; instance a is full until minute 50. The old
     * xlarge job fits nowhere now, so it reserves b from minute 40.
     */
    private static List<Instance> reservationFleet() {
        return List.of(
                ready("a", M16, running("a1", TWO_XLARGE, 50)),
                ready("b", M16, running("b1", XLARGE, 40), running("b2", MEDIUM, 60)));
    }

    @Test
    void the_oldest_job_that_fits_nowhere_reserves_the_instance_that_frees_up_soonest() {
        Decision d = Placement.place(snapshot(reservationFleet(), job("old", XLARGE, -10)));

        assertThat(d.reservations()).containsExactly(new Reservation("old", "b", Optional.of(at(40))));
        Waiting w = d.waiting().getFirst();
        assertThat(w.reason()).isEqualTo(WaitReason.NO_CAPACITY);
        assertThat(w.estimatedStart()).contains(at(40));
        assertThat(w.message()).isEqualTo("none of the 2 instances in pool default that can run class xlarge "
                + "(8 vCPU / 16384 MB / 80 GB) has room now (0 of them provisioning); room is expected at "
                + at(40));
    }

    @Test
    void a_younger_job_backfills_the_reserved_instance_only_if_it_ends_by_the_reservation() {
        Decision d = Placement.place(snapshot(reservationFleet(),
                job("old", XLARGE, -10),
                job("ends-on-time", LARGE, -5).expecting(Duration.ofMinutes(40)),
                job("runs-too-long", MEDIUM, -4).expecting(Duration.ofMinutes(41)),
                job("unknown-length", SMALL, -3)));

        assertThat(d.assignments()).containsExactly(new Assignment("ends-on-time", "b"));
        assertThat(d.waiting()).extracting(Waiting::jobId, Waiting::reason, Waiting::estimatedStart).containsExactly(
                tuple("old", WaitReason.NO_CAPACITY, Optional.of(at(40))),
                tuple("runs-too-long", WaitReason.RESERVED_FOR_OLDER_JOB,
                        Optional.of(at(50))),
                tuple("unknown-length", WaitReason.RESERVED_FOR_OLDER_JOB,
                        Optional.of(at(50))));
        assertThat(d.waiting().get(2).message()).isEqualTo("instance b has room but is held for older job old; this "
                + "job's duration is unknown, so it cannot be shown to end by " + at(40)
                + "; room elsewhere is expected at " + at(50));
    }

    @Test
    void younger_jobs_use_instances_that_are_not_reserved() {
        Decision d = Placement.place(snapshot(
                List.of(ready("a", M16, runningForever("a1", XLARGE)), ready("c", M8, runningForever("c1", LARGE))),
                job("old", TWO_XLARGE, -10),
                job("unknown-length", SMALL, -3)));

        assertThat(d.reservations()).containsExactly(new Reservation("old", "a", Optional.empty()));
        assertThat(d.assignments()).containsExactly(new Assignment("unknown-length", "c"));
    }

    @Test
    void nothing_is_backfilled_onto_a_reservation_whose_start_is_unknown() {
        Decision d = Placement.place(snapshot(List.of(ready("a", M16, runningForever("a1", XLARGE))),
                job("old", TWO_XLARGE, -10),
                job("one-minute", SMALL, -3).expecting(Duration.ofMinutes(1))));

        assertThat(d.assignments()).isEmpty();
        Waiting w = d.waiting().get(1);
        assertThat(w.reason()).isEqualTo(WaitReason.RESERVED_FOR_OLDER_JOB);
        assertThat(w.estimatedStart()).isEmpty();
        assertThat(w.message()).endsWith("its start cannot be estimated, so nothing is backfilled onto it");
    }

    @Test
    void an_organisation_at_its_limit_waits_until_one_of_its_jobs_is_expected_to_end() {
        RunningJob acmeJob = new RunningJob("r1", SMALL.demand(), "acme", Optional.of(at(30)));
        Snapshot s = new Snapshot(
                List.of(new PendingJob("acme-2", SMALL, "acme", at(-5)), new PendingJob("other", SMALL, "zeta", at(-4))),
                List.of(ready("a", M16, acmeJob)),
                new OrgLimits(Map.of("acme", 1)),
                at(0));

        Decision d = Placement.place(s);

        assertThat(d.assignments()).containsExactly(new Assignment("other", "a"));
        assertThat(d.waiting()).containsExactly(new Waiting("acme-2", WaitReason.ORG_CONCURRENCY_LIMIT,
                Optional.of(at(30)), "organisation acme is at its concurrency limit (1 running); one of them is expected "
                        + "to end at " + at(30)));
    }

    @Test
    void jobs_placed_in_the_same_decision_count_against_the_limit() {
        Snapshot s = new Snapshot(
                List.of(new PendingJob("1", SMALL, "acme", at(-3)), new PendingJob("2", SMALL, "acme", at(-2)),
                        new PendingJob("3", SMALL, "acme", at(-1))),
                List.of(ready("a", M16)), new OrgLimits(Map.of("acme", 2)), at(0));

        Decision d = Placement.place(s);

        assertThat(d.assignments()).extracting(Assignment::jobId).containsExactly("1", "2");
        assertThat(d.waiting()).extracting(Waiting::jobId, Waiting::reason)
                .containsExactly(tuple("3", WaitReason.ORG_CONCURRENCY_LIMIT));
    }

    @Test
    void a_pinned_job_runs_only_in_its_pool_and_an_unpinned_one_only_in_the_default_pool() {
        Instance mac = new Instance("mac-1", M8, "macos", InstanceState.READY, List.of(), Optional.empty());
        Decision d = Placement.place(snapshot(List.of(mac, ready("linux-1", M16)),
                job("ios", SMALL, -3).inPool("macos"),
                job("web", SMALL, -2),
                job("win", SMALL, -1).inPool("windows")));

        assertThat(d.assignments()).containsExactly(new Assignment("ios", "mac-1"), new Assignment("web", "linux-1"));
        assertThat(d.waiting()).containsExactly(new Waiting("win", WaitReason.NO_INSTANCE_LARGE_ENOUGH,
                Optional.empty(), "class small needs 1 vCPU / 2048 MB / 10 GB; pool windows has no instance that is "
                        + "up or starting"));
    }

    @Test
    void a_class_bigger_than_every_instance_says_how_big_the_largest_is() {
        Decision d = Placement.place(snapshot(List.of(ready("a", M8)), job("huge", TWO_XLARGE, -1)));

        assertThat(d.reservations()).isEmpty();
        assertThat(d.waiting().getFirst().message()).isEqualTo("class 2xlarge needs 16 vCPU / 32768 MB / 160 GB; "
                + "the largest instance in pool default has 8 vCPU / 16384 MB / 80 GB");
    }

    @Test
    void a_provisioning_instance_takes_no_job_yet_but_gives_the_estimate() {
        Instance coming = new Instance("p", M16, Instance.DEFAULT_POOL, InstanceState.PROVISIONING, List.of(),
                Optional.of(at(5)));
        Decision d = Placement.place(snapshot(List.of(coming, ready("a", M8, running("a1", XLARGE, 30))),
                job("j", XLARGE, -1)));

        assertThat(d.assignments()).isEmpty();
        assertThat(d.reservations()).containsExactly(new Reservation("j", "p", Optional.of(at(5))));
        assertThat(d.waiting().getFirst().message()).contains("(1 of them provisioning)");
    }

    @Test
    void a_draining_instance_takes_no_job_and_does_not_count_as_capacity() {
        Instance draining = new Instance("d", M16, Instance.DEFAULT_POOL, InstanceState.DRAINING, List.of(),
                Optional.empty());
        Decision d = Placement.place(snapshot(List.of(draining), job("j", SMALL, -1)));

        assertThat(d.assignments()).isEmpty();
        assertThat(d.waiting().getFirst().reason()).isEqualTo(WaitReason.NO_INSTANCE_LARGE_ENOUGH);
    }

    @Test
    void an_overrunning_job_makes_the_estimate_now_not_the_past() {
        Decision d = Placement.place(snapshot(List.of(ready("a", M8, running("late", XLARGE, -10))),
                job("j", SMALL, -1)));

        assertThat(d.waiting().getFirst().estimatedStart()).contains(at(0));
    }
}
