package dev.gantry.server;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.gantry.db.Database;
import dev.gantry.db.DatabaseSettings;
import dev.gantry.notify.http.AddressRule;
import dev.gantry.queue.QueueSettings;
import dev.gantry.queue.Queues;
import dev.gantry.queue.Shards;
import dev.gantry.queue.Worker;
import dev.gantry.scheduler.fleet.FleetConfig;
import dev.gantry.server.admin.DispatchRoutes;
import dev.gantry.server.admin.QueueAdminRoutes;
import dev.gantry.server.admission.AdmissionControl;
import dev.gantry.server.agent.AgentApi;
import dev.gantry.server.agent.OpenClaims;
import dev.gantry.server.agent.TaskWakeups;
import dev.gantry.server.auth.AgentAuthentication;
import dev.gantry.server.auth.AgentTokenRoutes;
import dev.gantry.server.auth.ApiAuthentication;
import dev.gantry.server.auth.ApiRoutes;
import dev.gantry.server.auth.AuditLog;
import dev.gantry.server.auth.ServerTokens;
import dev.gantry.server.auth.TokenKind;
import dev.gantry.server.auth.UserRoutes;
import dev.gantry.server.auth.Users;
import dev.gantry.server.dispatch.DispatchGate;
import dev.gantry.server.fleet.Autoscaling;
import dev.gantry.server.fleet.FleetInsights;
import dev.gantry.server.fleet.FleetSnapshots;
import dev.gantry.server.fleet.FleetView;
import dev.gantry.server.fleet.ImagePools;
import dev.gantry.server.fleet.PoolPauses;
import dev.gantry.server.fleet.QueueInsights;
import dev.gantry.server.insights.InsightsRoutes;
import dev.gantry.server.insights.ProjectInsights;
import dev.gantry.server.fleet.SchedulerMatcher;
import dev.gantry.server.http.ExternalUrl;
import dev.gantry.server.http.HealthCheck;
import dev.gantry.server.http.RequestLocks;
import dev.gantry.server.job.JobRoutes;
import dev.gantry.server.notify.Notifier;
import dev.gantry.server.orb.OrbRoutes;
import dev.gantry.server.orb.OrbStore;
import dev.gantry.server.orb.UpstreamRegistry;
import dev.gantry.server.orchestrator.WorkflowAdvancer;
import dev.gantry.server.orchestrator.WorkflowCommandRoutes;
import dev.gantry.server.orchestrator.WorkflowCommands;
import dev.gantry.server.pipeline.PipelineRoutes;
import dev.gantry.server.pipeline.PipelineTriggers;
import dev.gantry.server.plan.ConfigSource;
import dev.gantry.server.plan.Continuations;
import dev.gantry.server.plan.GitMirrors;
import dev.gantry.server.plan.PlanBuilder;
import dev.gantry.server.project.ProjectRoutes;
import dev.gantry.server.project.Projects;
import dev.gantry.server.project.RepositoryUrls;
import dev.gantry.server.results.ResultsApi;
import dev.gantry.server.results.ShownOutput;
import dev.gantry.server.retention.RetentionSweeper;
import dev.gantry.server.schedule.ScheduleRoutes;
import dev.gantry.server.schedule.Schedules;
import dev.gantry.server.secret.MasterKeys;
import dev.gantry.server.secret.SecretBox;
import dev.gantry.server.secret.SecretRoutes;
import dev.gantry.server.secret.Secrets;
import dev.gantry.server.status.StatusPage;
import dev.gantry.server.status.StatusRoutes;
import dev.gantry.server.storage.BlobStore;
import dev.gantry.server.storage.OutputStore;
import dev.gantry.server.storage.Storage;
import dev.gantry.server.webhook.WebhookRoutes;
import dev.gantry.server.ui.InsightPages;
import dev.gantry.server.ui.UsagePages;
import dev.gantry.server.ui.WebUi;
import dev.gantry.server.usage.UsageLedger;
import dev.gantry.server.usage.UsageReads;
import dev.gantry.server.usage.UsageRoutes;
import dev.gantry.server.workflow.WorkflowRoutes;
import dev.gantry.server.workflow.Workflows;
import io.javalin.Javalin;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.eclipse.jetty.server.ServerConnector;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.sqlobject.SqlObjectPlugin;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running Gantry server: the HTTP API on {@link ServerSettings#host()}, its schema {@code gantry}, the durable queue,
 * and the API tokens.
 *
 * <pre>{@code
 * try (GantryServer server = GantryServer.start(ServerSettings.defaults(),
 *         DatabaseSettings.fromEnvironment(System.getenv()))) {
 *     System.out.println(server.url() + ", admin token in " + server.tokenFile(TokenKind.ADMIN));
 *     ...
 * }
 * }</pre>
 *
 * <p>Start migrates the schema, makes sure of the tokens (see {@link ServerTokens}), starts the queue, opens the
 * storage ({@link Storage}: files under {@code home}, or the S3 bucket of {@link ServerSettings#blobStore()}, which
 * must answer), starts the queue's maintenance (every {@link #QUEUE_MAINTENANCE_EVERY}), the plan builder
 * ({@link PlanBuilder}, mirrors under {@code home/repos}), then HTTP, and logs one line
 * {@code Gantry listening on http://127.0.0.1:PORT}. If any step fails, what had started is stopped again.
 * Thread-safe; {@link #close()} stops HTTP (letting requests in flight finish), then the plan builder, then the
 * queue and the storage, then the database if this server started it.
 */
public final class GantryServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(GantryServer.class);

    /** How often the queue's maintenance runs: rescues expired leases, turns over and drops partitions. */
    public static final Duration QUEUE_MAINTENANCE_EVERY = Duration.ofSeconds(2);
    /**
     * How long a queue message claimed by this server's workers (a plan, a workflow advance) stays theirs without a
     * heartbeat. Short, so that a server stopped or cut off while holding messages loses them to the other servers
     * of the database within this plus {@link #QUEUE_MAINTENANCE_EVERY}; a working server's workers renew every
     * third of it, so a slow database may hold a heartbeat for over 6 s before a message it is handling is lost.
     */
    public static final Duration QUEUE_LEASE = Duration.ofSeconds(10);
    /** The settings of the main database's queue and of the queue shards. */
    private static final QueueSettings QUEUE_SETTINGS = QueueSettings.defaults().withLease(QUEUE_LEASE);
    /** The longest one statement of the agent protocol may run on the agents' own pool. */
    static final Duration AGENT_STATEMENT_TIMEOUT = Duration.ofSeconds(15);
    /** The master key file under {@code $GANTRY_HOME} unless {@code GANTRY_MASTER_KEY_FILE} names another. */
    public static final String MASTER_KEY_FILE = "master-key";

    private final String host;
    private final Javalin http;
    private final List<ApiRoutes.Route> routes;
    private final Queues queues;
    /** What runs on the queue, in the order it stops: the workers, then the queue's maintenance. */
    private final List<AutoCloseable> queueLoops;
    private final Database ownedDatabase;
    /** The agent protocol's own pool, when this server opened one; closed with the database. */
    private final AutoCloseable agentPool;
    private final ServerTokens tokens;
    private final AgentApi agents;
    private final ResultsApi results;
    private final ServerMetrics metrics;
    /** Where blobs and output go; closed once nothing that uses it runs. */
    private final Storage storage;
    private final AtomicBoolean closed = new AtomicBoolean();

    private GantryServer(String host, Javalin http, List<ApiRoutes.Route> routes, Queues queues,
                         List<AutoCloseable> queueLoops, Database ownedDatabase, AutoCloseable agentPool,
                         ServerTokens tokens, AgentApi agents, ResultsApi results, ServerMetrics metrics,
                         Storage storage) {
        this.agentPool = agentPool;
        this.storage = storage;
        this.host = host;
        this.http = http;
        this.routes = routes;
        this.agents = agents;
        this.results = results;
        this.queues = queues;
        this.queueLoops = queueLoops;
        this.ownedDatabase = ownedDatabase;
        this.tokens = tokens;
        this.metrics = metrics;
    }

    /**
     * Starts the database {@code database} describes (the embedded PostgreSQL under its home, or the server its URL
     * names), then the server on it; the token files go to the database settings' home. The server owns that
     * database and stops it on {@link #close()}.
     *
     * @throws dev.gantry.db.DatabaseException if the database does not start
     * @throws ServerStartException            if the server does not
     */
    public static GantryServer start(ServerSettings settings, DatabaseSettings database) {
        return start(settings, database, null);
    }

    /** As {@link #start(ServerSettings, DatabaseSettings)}, autoscaling the fleet {@code fleet} (null: no autoscaling). */
    public static GantryServer start(ServerSettings settings, DatabaseSettings database, Autoscaling.Setup fleet) {
        Database started = Database.start(database);
        HikariDataSource agentPool = null;
        try {
            agentPool = agentPool(started);
            return start(settings, started.getDataSource(), agentPool, database.home(), started, true, fleet);
        } catch (RuntimeException failure) {
            if (agentPool != null) {
                agentPool.close();
            }
            started.close();
            throw failure;
        }
    }

    /**
     * The agents' own small pool: claims, heartbeats and completions must not wait behind API requests for a
     * connection (one slow request path once held all of a shared pool), and their statements are short, so each
     * is cut off after {@link #AGENT_STATEMENT_TIMEOUT} and each lock wait after {@link RequestLocks#LOCK_TIMEOUT}:
     * the agent retries, as it does any 503.
     */
    private static HikariDataSource agentPool(Database database) {
        HikariConfig config = Database.poolConfig(database.url(), database.settings());
        config.setPoolName("gantry-agents");
        config.setMaximumPoolSize(database.settings().poolSize());
        config.setMinimumIdle(1);
        config.addDataSourceProperty("options", "-c statement_timeout=" + AGENT_STATEMENT_TIMEOUT.toMillis()
                + " -c lock_timeout=" + RequestLocks.LOCK_TIMEOUT.toMillis());
        return new HikariDataSource(config);
    }

    /**
     * Starts the server on a database someone else runs (tests do), with its token files in {@code home}. The data
     * source stays the caller's: {@link #close()} does not close it.
     *
     * @throws ServerStartException if the server does not start
     */
    public static GantryServer start(ServerSettings settings, DataSource dataSource, Path home) {
        return start(settings, dataSource, home, null);
    }

    /** As {@link #start(ServerSettings, DataSource, Path)}, autoscaling {@code fleet} (null: no autoscaling). */
    public static GantryServer start(ServerSettings settings, DataSource dataSource, Path home,
                                     Autoscaling.Setup fleet) {
        return start(settings, dataSource, dataSource, home, null, true, fleet);
    }

    /** A server without the plan builder, for tests that consume the plan messages themselves. */
    static GantryServer startWithoutPlanBuilder(ServerSettings settings, DataSource dataSource, Path home) {
        return start(settings, dataSource, dataSource, home, null, false, null);
    }

    /** @param agentDataSource the agent protocol's connections: a pool of their own, or {@code dataSource} */
    private static GantryServer start(ServerSettings settings, DataSource dataSource, DataSource agentDataSource,
                                      Path home, Database owned, boolean planPipelines, Autoscaling.Setup fleetSetup) {
        Objects.requireNonNull(settings, "settings");
        Objects.requireNonNull(home, "home");
        InstantSource clock = InstantSource.system();
        ServerSchema.migrate(dataSource);
        Jdbi jdbi = Jdbi.create(dataSource).installPlugin(new SqlObjectPlugin());
        ServerTokens tokens = ServerTokens.ensure(jdbi, home, clock, new SecureRandom());
        SecretBox secretBox = new SecretBox(jdbi, MasterKeys.open(settings.masterKeyFile() != null
                ? settings.masterKeyFile() : home.resolve(MASTER_KEY_FILE)), clock);
        Secrets secrets = new Secrets(jdbi, secretBox, clock);
        RepositoryUrls repositoryUrls = new RepositoryUrls(secretBox);
        ServerMetrics metrics = new ServerMetrics();
        metrics.bindPool(dataSource);
        metrics.bindPool(agentDataSource);
        Jdbi agentJdbi = agentDataSource == dataSource ? jdbi
                : Jdbi.create(agentDataSource).installPlugin(new SqlObjectPlugin());
        Queues queues;
        try {
            queues = startQueues(dataSource, metrics.registry());
        } catch (RuntimeException failure) {
            metrics.close();
            throw failure;
        }
        // Notification deliveries on databases of their own, when configured (docs/queue.md, "Shards").
        QueueShards queueShards = null;
        if (!settings.queueShards().isEmpty()) {
            try {
                queueShards = QueueShards.start(settings.queueShards(),
                        owned == null ? DatabaseSettings.defaults() : owned.settings(), QUEUE_SETTINGS, metrics);
            } catch (RuntimeException failure) {
                queues.close();
                metrics.close();
                throw failure;
            }
        }
        Shards deliveryShards = queueShards == null ? null : queueShards.shards();
        // Job output, caches, workspaces and artifacts: under $GANTRY_HOME, or shared by the servers of the database
        // (docs/storage.md).
        Storage storage;
        try {
            storage = Storage.open(settings.blobStore(), home);
        } catch (IOException e) {
            queues.close();
            if (queueShards != null) {
                queueShards.close();
            }
            metrics.close();
            throw new ServerStartException("Cannot start: " + e.getMessage(), e);
        }
        LOG.info("Storage: {}", storage.describe());
        BlobStore blobs = storage.blobs();
        // One database is one shard; Shards runs the maintenance loop the queue needs from some process.
        AutoCloseable queueMaintenance = Shards.of(List.of(queues)).startMaintenance(QUEUE_MAINTENANCE_EVERY);
        String instance = ServerInstance.id(home);
        Autoscaling autoscaling = fleetSetup == null ? null : new Autoscaling(fleetSetup, jdbi, clock, instance);
        // Resource classes, image pins and organisation limits come from the fleet file, if there is one.
        FleetConfig fleetConfig = fleetSetup == null ? FleetConfig.defaults() : fleetSetup.config();
        // Charged at each task's end in the agent protocol's transactions; counted into months (started below),
        // backfills and settings on the main pool.
        UsageLedger usage = new UsageLedger(jdbi, queues, fleetConfig.resourceClasses(), clock);
        OpenClaims claiming = new OpenClaims();
        FleetSnapshots fleet = new FleetSnapshots(fleetConfig.resourceClasses(), new ImagePools(fleetConfig),
                fleetConfig.orgLimits(), settings.agent().heartbeatInterval().multipliedBy(3),
                autoscaling == null ? FleetSnapshots.Overlay.NONE : autoscaling, claiming);
        // Job starts, plans and advances pause themselves while the database is distressed (started below).
        DispatchGate dispatch = new DispatchGate(settings.dispatch(), queues::health, jdbi, clock);
        AgentApi agents = new AgentApi(agentJdbi, queues, settings.agent(),
                dispatch.jobStarts(new SchedulerMatcher(fleet, clock)),
                claiming, blobs, storage.output(agentJdbi),
                new AgentAuthentication(tokens.hash(TokenKind.AGENT), agentJdbi), secrets, repositoryUrls, usage, clock,
                instance);
        ExternalUrl externalUrl = settings.externalUrl() != null ? ExternalUrl.configured(settings.externalUrl())
                : ExternalUrl.local();
        if (settings.port() != 0) { // else known once HTTP has taken a port
            externalUrl.listening(ServerSettings.localUrl(settings.host(), settings.port()));
        }
        OutputStore shownOutput = new ShownOutput(storage.output(jdbi), jdbi);
        ResultsApi results = new ResultsApi(jdbi, blobs, shownOutput, externalUrl);
        Runnable tasksQueued = agents.wakeups()::tasksQueued;
        List<AutoCloseable> queueLoops = new ArrayList<>();
        try {
            queueLoops.add(dispatch.start(metrics.registry()));
            releaseWhatTheLastRunHeld(queues, deliveryShards, instance);
            // Before anything that ends jobs or workflows runs: their transactions report to it from the start.
            AdmissionControl admission = new AdmissionControl(settings.admission(), () -> poolWaiters(dataSource),
                    clock, metrics.registry());
            Notifier notifier = Notifier.start(settings.notifications(),
                    new AddressRule(settings.repositories().privateNetworks()), jdbi, queues, deliveryShards,
                    dispatch.lowPriority(admission::overloaded), secretBox, externalUrl, instance, clock, agentJdbi);
            queueLoops.add(notifier);
            queueLoops.add(usage.start(instance, dispatch.lowPriority(admission::overloaded)));
            queueLoops.add(WorkflowAdvancer.start(queues, new WorkflowAdvancer(jdbi, clock, tasksQueued), instance,
                    dispatch.claims(DispatchGate.ADVANCES)));
            queueLoops.add(new RetentionSweeper(jdbi, blobs, settings.retention(), clock).start());
            OrbStore orbs = new OrbStore(jdbi, clock,
                    settings.orbRegistry() == null ? null : new UpstreamRegistry(settings.orbRegistry()));
            PipelineTriggers triggers = new PipelineTriggers(jdbi, queues, clock);
            Schedules schedules = new Schedules(jdbi, triggers, clock).start();
            queueLoops.add(schedules);
            if (planPipelines) {
                GitMirrors mirrors = GitMirrors.under(home, settings.repositories());
                // The stored URL holds no credentials: the fetch gets them back from where they are sealed.
                ConfigSource configs = (projectId, vcsUrl, ref, revision, notBefore) -> mirrors.fetch(projectId,
                        jdbi.withHandle(h -> repositoryUrls.fetchable(h, projectId, vcsUrl)), ref, revision,
                        notBefore);
                queueLoops.add(new PlanBuilder(jdbi, queues, configs, orbs, fleetConfig.resourceClasses(), clock,
                        tasksQueued, settings.maxPipelineJobs()).start(instance, dispatch.claims(DispatchGate.PLANS)));
            }
            Users users = new Users(jdbi, clock, new SecureRandom()).ensureAdmin();
            // The status page evaluates in the background from here on; requests read only what it last computed.
            StatusPage status = new StatusPage(jdbi, metrics.registry(), settings.status(), instance,
                    new ImagePools(fleetConfig), fleetConfig.resourceClasses().all().stream()
                    .map(c -> c.name()).toList(), clock);
            queueLoops.add(status);
            ApiAuthentication authentication = new ApiAuthentication(tokens.hash(TokenKind.ADMIN), users);
            AuditLog audit = new AuditLog(jdbi, clock);
            JobRoutes jobs = new JobRoutes(jdbi, new FleetView(fleet, dispatch::pausedBecause), clock, externalUrl);
            WorkflowCommands commands = new WorkflowCommands(jdbi, clock, tasksQueued);
            QueueInsights queueInsights = new QueueInsights(jdbi, fleet, clock);
            FleetInsights fleetInsights = new FleetInsights(jdbi, fleet, autoscaling, clock);
            QueueAdminRoutes queueAdmin = new QueueAdminRoutes(queues);
            Projects projects = new Projects(jdbi, clock, settings.repositories(), repositoryUrls);
            ProjectInsights projectInsights = new ProjectInsights(jdbi);
            UsageReads usageReads = new UsageReads(jdbi, clock);
            HttpApi.Api api = HttpApi.create(settings.host(), settings.port(), settings.tls(), authentication,
                    new RouteOwners(jdbi), audit, new ProjectRoutes(projects),
                    new PipelineRoutes(triggers), new WorkflowRoutes(new Workflows(jdbi)), jobs,
                    new WorkflowCommandRoutes(commands),
                    queueInsights, fleetInsights, new PoolPauses(jdbi, clock), queueAdmin, metrics, agents, results,
                    new OrbRoutes(orbs), new WebhookRoutes(jdbi, triggers, clock),
                    new Continuations(jdbi, orbs, fleetConfig.resourceClasses(), clock, tasksQueued,
                            settings.maxPipelineJobs()),
                    new ScheduleRoutes(schedules), new SecretRoutes(secrets, secretBox), new UserRoutes(users),
                    new AgentTokenRoutes(jdbi, clock, new SecureRandom()), new HealthCheck(jdbi),
                    new WebUi(jdbi, authentication, jobs, commands, shownOutput, results.forPages(), audit,
                            status, new InsightPages(fleetInsights, queueInsights, queueAdmin, projectInsights),
                            new UsagePages(usageReads),
                            metrics.registry(), clock, new SecureRandom()),
                    new StatusRoutes(status, externalUrl), new UsageRoutes(usage, usageReads),
                    new DispatchRoutes(dispatch), admission,
                    notifier.routes(), notifier.destinationRoutes(),
                    new InsightsRoutes(projectInsights, projects, clock));
            Javalin http = api.http();
            startHttp(http, settings);
            externalUrl.listening(ServerSettings.localUrl(settings.host(), httpPort(http)));
            agents.start();
            status.start();
            if (autoscaling != null) {
                queueLoops.addFirst(autoscaling); // first to stop: it stops the agents it started
                autoscaling.start(fleet, ServerSettings.localUrl(settings.host(), httpPort(http)));
            }
            queueLoops.add(queueMaintenance); // last: it keeps the queue healthy while the workers stop
            if (queueShards != null) {
                // The shards' maintenance, then the shards themselves: nothing of the main queue depends on them.
                queueLoops.add(deliveryShards.startMaintenance(QUEUE_MAINTENANCE_EVERY));
                queueLoops.add(queueShards);
            }
            GantryServer server = new GantryServer(settings.host(), http, api.routes(), queues, List.copyOf(queueLoops),
                    owned, agentDataSource == dataSource ? null : (AutoCloseable) agentDataSource, tokens, agents,
                    results, metrics, storage);
            LOG.info("Gantry listening on {}", server.listening());
            return server;
        } catch (RuntimeException failure) {
            agents.close();
            results.close();
            queueLoops.add(queueMaintenance);
            if (queueShards != null) {
                queueLoops.add(queueShards);
            }
            closeQuietly(queueLoops);
            queues.close();
            storage.close();
            metrics.close();
            throw failure;
        }
    }

    /** Requests waiting for a connection of the main pool now; 0 for a pool that is not HikariCP's. */
    private static int poolWaiters(DataSource dataSource) {
        return dataSource instanceof HikariDataSource pool && pool.getHikariPoolMXBean() != null
                ? pool.getHikariPoolMXBean().getThreadsAwaitingConnection() : 0;
    }

    /**
     * A server killed mid-work left messages leased to its workers; nobody works on them now. With queue shards, the
     * notifier's are on the shards.
     */
    private static void releaseWhatTheLastRunHeld(Queues queues, Shards deliveryShards, String instance) {
        int released = queues.releaseHeldBy(List.of(WorkflowAdvancer.workerName(instance),
                PlanBuilder.workerName(instance), Notifier.workerName(instance), UsageLedger.workerName(instance)));
        if (deliveryShards != null) {
            for (Queues shard : deliveryShards.all()) {
                released += shard.releaseHeldBy(List.of(Notifier.workerName(instance)));
            }
        }
        if (released > 0) {
            LOG.info("Released {} queue messages the previous run of this server held", released);
        }
    }

    private static Queues startQueues(DataSource dataSource, MeterRegistry metrics) {
        try {
            return Queues.start(dataSource, QUEUE_SETTINGS, metrics);
        } catch (RuntimeException e) {
            throw new ServerStartException("Cannot start the durable queue: " + e.getMessage(), e);
        }
    }

    private static void startHttp(Javalin http, ServerSettings settings) {
        try {
            http.start();
        } catch (RuntimeException e) {
            throw new ServerStartException("Cannot listen on " + settings.host() + ":" + settings.port() + ": "
                    + e.getMessage(), e);
        }
    }

    /** The port the server listens on: the one asked for, or the free one it took when asked for 0. */
    public int port() {
        return httpPort(http);
    }

    /** The API's routes and what each asks of its caller, as the role matrix test walks them. */
    public List<ApiRoutes.Route> routes() {
        return routes;
    }

    /** {@link #url()}, and the HTTPS port when there is one: what the server says it listens on. */
    public String listening() {
        OptionalInt https = httpsPort();
        return url() + (https.isPresent() ? " and HTTPS on port " + https.getAsInt() : "");
    }

    /** The HTTPS port, when the settings asked for HTTPS (the free one taken for 0); else empty. */
    public OptionalInt httpsPort() {
        return connectorPort(http, HttpApi.HTTPS);
    }

    private static int httpPort(Javalin http) {
        return connectorPort(http, HttpApi.HTTP).orElseGet(http::port); // Javalin's own connector when HTTP alone
    }

    private static OptionalInt connectorPort(Javalin http, String name) {
        return Arrays.stream(http.jettyServer().server().getConnectors())
                .filter(c -> name.equals(c.getName()) && c instanceof ServerConnector)
                .mapToInt(c -> ((ServerConnector) c).getLocalPort()).findFirst();
    }

    /** {@code http://127.0.0.1:PORT} (or the host it listens on, if only one), where the API is. */
    public URI url() {
        return ServerSettings.localUrl(host, port()); // as the autoscaler's agents are told
    }

    /** Where the token of {@code kind} is for the operator: {@code $GANTRY_HOME/admin-token} or {@code agent-token}. */
    public Path tokenFile(TokenKind kind) {
        return tokens.file(kind);
    }

    /**
     * The wake-up for claims waiting in this server: whoever queues job tasks calls
     * {@link TaskWakeups#tasksQueued()} after its commit.
     */
    public TaskWakeups taskWakeups() {
        return agents.wakeups();
    }

    /**
     * Ends waiting agent claims (204) and output streams, stops HTTP (requests in flight finish), then the queue's
     * workers (orchestrator, plan builder: work under way finishes) and maintenance, then the database if this
     * server started it. Idempotent.
     */
    @Override
    public void close() {
        if (closed.getAndSet(true)) {
            return;
        }
        try {
            agents.close();
            results.close();
            http.stop();
        } finally {
            try {
                closeQuietly(queueLoops);
                queues.close();
                storage.close();
            } finally {
                try {
                    if (agentPool != null) {
                        closeQuietly(List.of(agentPool));
                    }
                    if (ownedDatabase != null) {
                        ownedDatabase.close();
                    }
                } finally {
                    metrics.close();
                }
            }
        }
    }

    private static void closeQuietly(List<AutoCloseable> loops) {
        for (AutoCloseable loop : loops) {
            try {
                loop.close();
            } catch (Exception e) {
                // A loop's close only waits for the work under way; failing to is no reason to keep the rest running.
                LOG.warn("Stopping {} failed", loop, e);
            }
        }
    }
}
