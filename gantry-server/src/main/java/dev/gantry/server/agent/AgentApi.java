package dev.gantry.server.agent;

import dev.gantry.queue.Queues;
import dev.gantry.server.auth.AgentAuthentication;
import dev.gantry.server.project.RepositoryUrls;
import dev.gantry.server.secret.Secrets;
import dev.gantry.server.storage.BlobStore;
import dev.gantry.server.storage.OutputStore;
import dev.gantry.server.usage.UsageLedger;
import io.javalin.config.RoutesConfig;
import java.time.InstantSource;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.jdbi.v3.core.Jdbi;

/**
 * The server side of the agent protocol (docs/agent-protocol.md) under {@link #PREFIX}: its routes behind the agent
 * token, the claims' wake-ups and the lease sweeper.
 *
 * <p>Lifecycle: make it, {@link #addRoutes} while configuring Javalin, {@link #start()} the sweeper, and at shutdown
 * {@link #close()} <em>before</em> stopping HTTP, so that waiting claims answer 204 at once instead of holding the
 * shutdown for their poll timeout. Thread-safe.
 */
public final class AgentApi implements AutoCloseable {
    /** Where the protocol's routes live. */
    public static final String PREFIX = "/api/agent/v1";

    private final AgentAuthentication authentication;
    private final TaskWakeups wakeups = new TaskWakeups();
    private final ExecutorService waiters = Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("agent-claim-", 0).factory());
    private final LeaseSweeper sweeper;
    private final AgentRoutes agents;
    private final TaskReportRoutes reports;
    private final CacheRoutes caches;
    private final WorkspaceRoutes workspaces;

    /**
     * @param matcher  which queued task a claim gets
     * @param claiming where claims note that they are open, for the scheduler's snapshot
     * @param blobs   where caches, workspace layers and artifacts go
     * @param output  where the nodes' output goes
     * @param usage   the ledger every task's end is charged to, in the transaction that ends it
     * @param instance this server's instance id, as its lease sweeper marks its sweeps
     */
    public AgentApi(Jdbi jdbi, Queues queues, AgentSettings settings, TaskMatcher matcher, OpenClaims claiming,
                    BlobStore blobs, OutputStore output, AgentAuthentication authentication, Secrets secrets,
                    RepositoryUrls repositoryUrls, UsageLedger usage, InstantSource clock, String instance) {
        this.authentication = authentication;
        Leases leases = new Leases(jdbi, wakeups, settings, clock, usage);
        this.agents = new AgentRoutes(new Claims(jdbi, settings, matcher, wakeups, claiming, secrets, repositoryUrls, clock), leases, output, settings,
                waiters, clock);
        this.reports = new TaskReportRoutes(jdbi, leases, blobs, clock);
        this.caches = new CacheRoutes(jdbi, leases, blobs, clock);
        this.workspaces = new WorkspaceRoutes(jdbi, leases, blobs, clock);
        this.sweeper = new LeaseSweeper(jdbi, queues, output, clock, settings.leaseTimeout(), wakeups, usage,
                instance);
    }

    /** What the orchestrator calls after committing newly queued tasks, to wake waiting claims in this process. */
    public TaskWakeups wakeups() {
        return wakeups;
    }

    /** Adds the protocol's routes, and the agent-token check in front of them, to {@code routes}. */
    public void addRoutes(RoutesConfig routes) {
        String task = PREFIX + "/tasks/{job_id}/{node_index}";
        routes.before(PREFIX + "/*", authentication);
        routes.post(PREFIX + "/register", agents::register);
        routes.post(PREFIX + "/agents/{agent_id}/claim", agents::claim);
        routes.post(task + "/heartbeat", agents::heartbeat);
        routes.post(task + "/output", agents::output);
        routes.post(task + "/complete", agents::complete);
        routes.put(task + "/steps/{step_index}", reports::step);
        routes.put(task + "/artifacts/<path>", reports::artifact);
        routes.post(task + "/tests", reports::tests);
        routes.get(task + "/timings", reports::timings);
        routes.get(task + "/cache", caches::lookup);
        routes.get(task + "/cache/<key>", caches::download);
        routes.put(task + "/cache/<key>", caches::upload);
        routes.put(task + "/workspace", workspaces::upload);
        routes.get(task + "/workspace", workspaces::list);
        routes.get(task + "/workspace/{layer_id}", workspaces::download);
    }

    /** Starts the lease sweeper. */
    public void start() {
        sweeper.start();
    }

    /**
     * Answers waiting claims with 204 (and later ones at once), stops the sweeper. Idempotent. The claims' executor
     * is left open: its virtual threads end with their claims, and a claim arriving while HTTP stops still needs it.
     */
    @Override
    public void close() {
        wakeups.close();
        sweeper.close();
    }
}
