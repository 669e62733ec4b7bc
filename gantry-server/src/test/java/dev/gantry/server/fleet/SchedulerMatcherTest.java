package dev.gantry.server.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gantry.scheduler.Instance;
import dev.gantry.scheduler.InstanceType;
import dev.gantry.scheduler.OrgLimits;
import dev.gantry.scheduler.Resources;
import dev.gantry.scheduler.RunningJob;
import dev.gantry.scheduler.Snapshot;
import dev.gantry.server.agent.FreeResources;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SchedulerMatcherTest {
    static final InstanceType BOX = new InstanceType("agent box", new Resources(8, 16384, 80));
    static final Instant NOW = Instant.parse("2026-11-30T12:00:00Z");

    static Snapshot snapshot(Instance... instances) {
        return new Snapshot(List.of(), List.of(instances), OrgLimits.NONE, NOW);
    }

    @Test
    void an_agent_that_reports_less_free_than_its_tasks_leave_holds_the_difference_as_a_job_of_unknown_end() {
        Instance busy = Instance.ready("a", BOX, List.of(new RunningJob("t", new Resources(2, 4096, 20), "acme",
                Optional.of(NOW.plusSeconds(60)))));

        Snapshot capped = SchedulerMatcher.freeAtMost(snapshot(busy), "a", new FreeResources(4, 8192));

        Instance a = capped.instances().getFirst();
        assertThat(a.free()).isEqualTo(new Resources(4, 8192, 60));
        assertThat(a.running()).last().isEqualTo(new RunningJob(SchedulerMatcher.UNACCOUNTED,
                new Resources(2, 4096, 0), SchedulerMatcher.UNACCOUNTED, Optional.empty()));
    }

    @Test
    void an_agent_that_reports_as_much_or_more_free_and_every_other_agent_are_left_as_they_are() {
        Instance a = Instance.ready("a", BOX, List.of());
        Instance b = Instance.ready("b", BOX, List.of());

        Snapshot capped = SchedulerMatcher.freeAtMost(snapshot(a, b), "a", new FreeResources(64, 1 << 20));

        assertThat(capped.instances()).containsExactly(a, b);
        assertThat(SchedulerMatcher.freeAtMost(snapshot(a, b), "a", new FreeResources(1, 1 << 20)).instances().get(1))
                .isEqualTo(b);
    }
}
