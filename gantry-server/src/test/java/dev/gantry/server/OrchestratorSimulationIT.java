package dev.gantry.server;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import dev.gantry.server.dst.Simulation;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Deterministic simulation testing of the orchestrator (issue 6): the real server code (triggers, plan builder,
 * orchestrator, workflow commands, agent protocol, lease sweeper, durable queue) on a real PostgreSQL, driven one step
 * at a time in an order a seeded random chooses, on a virtual clock, with crashes at any statement, lost and
 * duplicated messages and delays injected, and the invariants checked after every event (see
 * {@link dev.gantry.server.dst.Simulation} and docs/simulator.md).
 *
 * <p>Checked exactly once are the side effects Gantry records today: job numbers, each job's settlement (its
 * stopped_at), the tasks queued for a job, and each task attempt's charge in the usage ledger, which must be what
 * the usage rule makes of the task's record (what a backfill would write) after every event. An operator switches
 * the organization's charging off and on among the faults; such a seed ends with a backfill (crashing at a random
 * statement, then run again), after which the ledger must be the always-on one. Notification deliveries are not
 * checked here: the simulated server records no events (docs/simulator.md).
 *
 * <p>{@code -Ddst.seeds=N} runs seeds 0 to N-1 (default {@value Simulation#DEFAULT_SEEDS}, printing progress and the
 * rate); {@code -Ddst.seed=S} replays seed S alone, printing every event. A failure names the seed and the command
 * that replays it.
 */
class OrchestratorSimulationIT {
    @RegisterExtension
    static final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension(4);

    @TempDir
    static Path home;

    static Simulation simulation;

    @BeforeAll
    static void start() {
        // Lost agents, crashed deliveries and retried plans are what the simulation is made of: their log lines
        // would drown the output.
        ((Logger) LoggerFactory.getLogger("dev.gantry")).setLevel(Level.ERROR);
        ServerSchema.migrate(pg.dataSource());
        simulation = new Simulation(pg.dataSource(), home);
    }

    @AfterAll
    static void stop() {
        if (simulation != null) {
            simulation.close();
        }
        ((Logger) LoggerFactory.getLogger("dev.gantry")).setLevel(Level.INFO);
    }

    @Test
    void every_seed_keeps_the_invariants_and_finishes() {
        String one = System.getProperty("dst.seed");
        if (one != null) {
            simulation.replay(Long.parseLong(one.strip()), System.out::println);
            return;
        }
        simulation.runSeeds(Long.getLong("dst.firstSeed", 0), Long.getLong("dst.seeds", Simulation.DEFAULT_SEEDS),
                System.out::println);
    }

    @Test
    void a_seed_replays_exactly() {
        for (long seed : new long[] {7, 4, 47, 4242, 900_001, 31, 1234, 99}) {
            List<String> first = simulation.run(seed);
            List<String> second = simulation.run(seed);
            assertThat(second).as("trace of seed %d, run twice", seed).isEqualTo(first);
        }
    }
}
