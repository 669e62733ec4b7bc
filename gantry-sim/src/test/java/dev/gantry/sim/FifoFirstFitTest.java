package dev.gantry.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.gantry.scheduler.Assignment;
import dev.gantry.scheduler.Instance;
import dev.gantry.scheduler.InstanceState;
import dev.gantry.scheduler.InstanceType;
import dev.gantry.scheduler.OrgLimits;
import dev.gantry.scheduler.PendingJob;
import dev.gantry.scheduler.ResourceClasses;
import dev.gantry.scheduler.Resources;
import dev.gantry.scheduler.RunningJob;
import dev.gantry.scheduler.Snapshot;
import dev.gantry.scheduler.Waiting;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class FifoFirstFitTest {
    static final ResourceClasses CLASSES = ResourceClasses.defaults();
    static final InstanceType T16 = new InstanceType("t16", new Resources(16, 32 * 1024, 160));
    static final Instant T0 = Instant.parse("2026-10-21T12:00:00Z");

    @Test
    void each_job_oldest_first_goes_to_the_first_instance_with_room_and_a_job_that_fits_nowhere_is_overtaken() {
        // a runs 12 vCPU, b runs nothing: a 2xlarge fits only on b, but the older smalls take b's room first.
        Instance a = Instance.ready("a", T16, List.of(new RunningJob("r", new Resources(12, 1024, 10), "org",
                Optional.empty())));
        Instance b = Instance.ready("b", T16, List.of());
        List<PendingJob> pending = List.of(
                job("small-1", "small", 1), job("small-2", "small", 2), job("small-3", "small", 3),
                job("small-4", "small", 4), job("small-5", "small", 5), job("big", "2xlarge", 6),
                job("small-6", "small", 7));

        var decision = FifoFirstFit.place(new Snapshot(pending, List.of(a, b), OrgLimits.NONE, T0.plusSeconds(10)));

        assertThat(decision.assignments()).extracting(Assignment::jobId, Assignment::instanceId).containsExactly(
                tuple("small-1", "a"), tuple("small-2", "a"), tuple("small-3", "a"), tuple("small-4", "a"),
                tuple("small-5", "b"), tuple("small-6", "b"));
        assertThat(decision.waiting()).extracting(Waiting::jobId).containsExactly("big");
        assertThat(decision.reservations()).isEmpty();
    }

    @Test
    void a_job_goes_only_to_a_ready_instance_of_its_pool() {
        Instance mac = new Instance("mac", T16, "macos", InstanceState.READY, List.of(), Optional.empty());
        Instance starting = new Instance("starting", T16, "default", InstanceState.PROVISIONING, List.of(),
                Optional.empty());

        var decision = FifoFirstFit.place(new Snapshot(List.of(job("j", "small", 1)), List.of(mac, starting),
                OrgLimits.NONE, T0.plusSeconds(10)));

        assertThat(decision.assignments()).isEmpty();
        assertThat(decision.waiting()).extracting(Waiting::jobId).containsExactly("j");
    }

    static PendingJob job(String id, String resourceClass, int secondsAfterStart) {
        return new PendingJob(id, CLASSES.get(resourceClass), "org", T0.plusSeconds(secondsAfterStart));
    }
}
