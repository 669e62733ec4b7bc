package dev.gantry.server.job;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gantry.scheduler.PendingJob;
import dev.gantry.scheduler.ResourceClass;
import dev.gantry.scheduler.WaitReason;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class WaitingTest {
    private static PendingJob task(ResourceClass resourceClass, String pool) {
        return new PendingJob("job/0", resourceClass, "acme", Instant.EPOCH, pool, Optional.empty());
    }

    @Test
    void a_task_no_agent_could_run_says_how_to_start_one_that_can_in_its_own_pool_and_size() {
        assertThat(Waiting.hint(WaitReason.NO_INSTANCE_LARGE_ENOUGH,
                task(new ResourceClass("large", 4, 8192, 80, 20), "macos")))
                .endsWith("bin/gantry agent --server URL --token-file $GANTRY_HOME/agent-token --pool macos --cpu 4 "
                        + "--memory 8");
    }

    @Test
    void memory_that_is_not_whole_gigabytes_is_rounded_up_so_the_agent_offers_enough() {
        assertThat(Waiting.hint(WaitReason.NO_INSTANCE_LARGE_ENOUGH,
                task(new ResourceClass("odd", 1, 1500, 10, 5), "default"))).endsWith("--cpu 1 --memory 1.47");
    }

    @Test
    void a_task_that_only_waits_its_turn_gets_no_hint() {
        assertThat(Waiting.hint(WaitReason.NO_CAPACITY, task(new ResourceClass("medium", 2, 4096, 20, 10),
                "default"))).isEmpty();
    }
}
