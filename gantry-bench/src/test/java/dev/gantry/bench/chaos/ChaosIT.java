package dev.gantry.bench.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chaos suite in its small form ({@link ChaosPlan#smoke()}): 40 pipelines on two servers behind a balancer and
 * two agents while each fault kind strikes once (a server and an agent killed with SIGKILL, the postmaster killed
 * with SIGKILL, a server paused 8 s rather than the full run's 30). Nothing accepted may be lost, nothing may run
 * twice to completion, nothing may be charged twice (or left uncharged), everything must end. {@code -Dgantry.chaos.seed=N} replays a seed's choices.
 */
class ChaosIT {
    /** Kept when the test fails: the processes' logs are in {@code logs/}, what the jobs did in {@code trace.log}. */
    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path dir;

    @Test
    void nothing_accepted_is_lost_and_nothing_runs_twice_while_servers_agents_and_the_database_fail()
            throws Exception {
        long seed = Long.getLong("gantry.chaos.seed", 31);

        ChaosResult result = new ChaosRun(ChaosPlan.smoke(), seed, dir, System.out).run();

        System.out.println(result.resultLine());
        assertThat(result.faults()).extracting(FaultDriver.Fault::kind).contains(FaultDriver.Kind.values());
        assertThat(result.pipelines()).isEqualTo(ChaosPlan.smoke().pipelines());
        assertThat(result.lostTriggers()).as("accepted triggers lost").isZero();
        assertThat(result.ranTwice()).as("job nodes that ran twice to completion").isZero();
        assertThat(result.nodesRerun()).as("finished nodes run again by their job's retry").isZero();
        assertThat(result.notFinal()).as("pipelines not in a final state").isZero();
        assertThat(result.duplicates()).as("pipelines stored twice").isZero();
        assertThat(result.doubleUsage()).as("task attempts charged twice, charged without running, or not charged")
                .isZero();
        assertThat(result.faults()).allSatisfy(f -> assertThat(f.recoveryMs()).as("fault %d recovered", f.number())
                .isNotNegative());
        assertThat(result.passed()).isTrue();
    }
}
