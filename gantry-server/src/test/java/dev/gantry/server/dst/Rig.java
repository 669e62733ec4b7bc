package dev.gantry.server.dst;

import dev.gantry.config.orb.OrbResolver;
import dev.gantry.queue.QueueSettings;
import dev.gantry.queue.Queues;
import dev.gantry.scheduler.fleet.FleetConfig;
import dev.gantry.server.agent.AgentCalls;
import dev.gantry.server.agent.AgentSettings;
import dev.gantry.server.agent.OpenClaims;
import dev.gantry.server.fleet.FleetSnapshots;
import dev.gantry.server.fleet.ImagePools;
import dev.gantry.server.fleet.SchedulerMatcher;
import dev.gantry.server.orchestrator.WorkflowAdvancer;
import dev.gantry.server.orchestrator.WorkflowCommands;
import dev.gantry.server.pipeline.TriggerCalls;
import dev.gantry.server.plan.PlanBuilder;
import dev.gantry.server.storage.FileOutputStore;
import dev.gantry.server.usage.UsageLedger;
import dev.gantry.testkit.ManualClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import javax.sql.DataSource;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.sqlobject.SqlObjectPlugin;

/**
 * The real server's parts, wired as {@code GantryServer} wires them but without threads, HTTP or workers, on one
 * database and one virtual clock, for every seed of the simulation: the trigger code, the plan builder (reading
 * {@link GeneratedConfigs} instead of git), the orchestrator's handler, the workflow commands, the agent protocol's
 * calls and the lease sweeper, and the durable queue between them. The server code runs on {@link #jdbi}, which
 * crashes where {@link #faults} says; the checks read through {@link #checks}, which never does.
 */
final class Rig implements AutoCloseable {
    /** The queue lease: short, so that a crashed delivery comes back after a few virtual seconds. */
    static final Duration QUEUE_LEASE = Duration.ofSeconds(10);
    static final AgentSettings AGENT = AgentSettings.defaults();
    /** The worker name the simulated server claims queue messages under. */
    static final String WORKER = "server@dst";

    final ManualClock clock = new ManualClock();
    final SeededRandom queueRandom = new SeededRandom();
    final StatementFaults faults = new StatementFaults();
    final Jdbi jdbi;
    final Jdbi checks;
    final Queues queues;
    final GeneratedConfigs configs = new GeneratedConfigs();
    final TriggerCalls triggers;
    final PlanBuilder planner;
    final WorkflowAdvancer advancer;
    final WorkflowCommands commands;
    final AgentCalls agents;
    final UsageLedger usage;

    Rig(DataSource dataSource, Path home) {
        jdbi = Jdbi.create(dataSource).installPlugin(new SqlObjectPlugin());
        jdbi.addCustomizer(faults);
        checks = Jdbi.create(dataSource).installPlugin(new SqlObjectPlugin());
        queues = Queues.start(dataSource, QueueSettings.defaults().withLease(QUEUE_LEASE).withClock(clock)
                .withRandom(queueRandom), new SimpleMeterRegistry());
        FleetConfig fleet = FleetConfig.defaults();
        triggers = new TriggerCalls(jdbi, queues, clock);
        planner = new PlanBuilder(jdbi, queues, configs, OrbResolver.NONE, fleet.resourceClasses(), clock,
                () -> { });
        advancer = new WorkflowAdvancer(jdbi, clock, () -> { });
        commands = new WorkflowCommands(jdbi, clock, () -> { });
        FleetSnapshots snapshots = new FleetSnapshots(fleet.resourceClasses(), new ImagePools(fleet),
                fleet.orgLimits(), AGENT.heartbeatInterval().multipliedBy(3), FleetSnapshots.Overlay.NONE,
                new OpenClaims());
        usage = new UsageLedger(jdbi, queues, fleet.resourceClasses(), clock);
        agents = new AgentCalls(jdbi, queues, AGENT, new SchedulerMatcher(snapshots, clock),
                new FileOutputStore(home.resolve("output")), usage, clock);
    }

    /** Empties what the seeds wrote: the queue's messages and the server's tables. */
    void truncate() {
        checks.useHandle(h -> h.execute("""
                TRUNCATE gantry_queue.message, gantry_queue.message_archive, gantry.project, gantry.agent,
                         gantry.usage_charge, gantry.usage_month CASCADE
                """));
    }

    @Override
    public void close() {
        queues.close();
    }
}
