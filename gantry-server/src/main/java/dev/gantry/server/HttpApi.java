package dev.gantry.server;

import dev.gantry.server.admin.QueueAdminRoutes;
import dev.gantry.server.agent.AgentApi;
import dev.gantry.server.auth.AdminAuthentication;
import dev.gantry.server.http.ErrorResponses;
import dev.gantry.server.http.JsonBody;
import dev.gantry.server.fleet.FleetInsights;
import dev.gantry.server.fleet.PoolPauses;
import dev.gantry.server.fleet.QueueInsights;
import dev.gantry.server.job.JobRoutes;
import dev.gantry.server.orb.OrbRoutes;
import dev.gantry.server.orchestrator.WorkflowCommandRoutes;
import dev.gantry.server.pipeline.PipelineRoutes;
import dev.gantry.server.plan.Continuations;
import dev.gantry.server.project.ProjectRoutes;
import dev.gantry.server.results.ResultsApi;
import dev.gantry.server.schedule.ScheduleRoutes;
import dev.gantry.server.secret.SecretRoutes;
import dev.gantry.server.webhook.WebhookRoutes;
import dev.gantry.server.workflow.WorkflowRoutes;
import io.javalin.Javalin;
import io.javalin.http.HttpResponseException;
import java.security.KeyStore;
import org.eclipse.jetty.server.ConnectionFactory;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.ssl.SslContextFactory;

/**
 * The routes of the HTTP API, and what guards them: the admin token on {@code /api/v2} and {@code /metrics}, the
 * agent token on {@code /api/agent/v1}, JSON errors everywhere. {@code maxRequestSize} caps only bodies read into
 * memory ({@code ctx.body()}); JSON bodies have {@link JsonBody}'s own limit, and agent uploads are streamed to files
 * under a limit of their own.
 */
final class HttpApi {
    private HttpApi() {
    }

    /** A Javalin instance for {@code host} and {@code port}, and HTTPS as {@code tls} says (if not null), not started yet. */
    static Javalin create(String host, int port, TlsSettings tls, AdminAuthentication authentication, ProjectRoutes projects,
                          PipelineRoutes pipelines, WorkflowRoutes workflows, JobRoutes jobs,
                          WorkflowCommandRoutes workflowCommands, QueueInsights queueInsights,
                          FleetInsights fleetInsights, PoolPauses poolPauses, QueueAdminRoutes queueAdmin,
                          ServerMetrics metrics, AgentApi agents, ResultsApi results, OrbRoutes orbs,
                          WebhookRoutes webhooks, Continuations continuations, ScheduleRoutes schedules,
                          SecretRoutes secrets) {
        ErrorResponses errors = new ErrorResponses();
        return Javalin.create(config -> {
            config.jetty.host = host;
            config.jetty.port = port;
            if (tls != null) {
                // Javalin adds its HTTP connector only when there is no other, so both are added here.
                KeyStore keys = tls.keyStore();
                config.jetty.addConnector((server, http) -> connector(HTTP, server, host, port,
                        new HttpConnectionFactory(http)));
                config.jetty.addConnector((server, http) -> httpsConnector(server, http, host, tls.port(), keys));
            }
            config.startup.showJavalinBanner = false;
            config.http.maxRequestSize = JsonBody.MAX_BYTES;
            config.http.prefer405over404 = true;
            config.requestLogger.http(metrics::recordRequest);

            config.routes.before("/api/v2/*", authentication);
            config.routes.before("/api/v2/project/" + ProjectRoutes.CIRCLECI + "/*", projects::resolveById);
            config.routes.before("/metrics", authentication);
            config.routes.get("/metrics", metrics::scrape);
            config.routes.get("/api/v2/me", authentication::me);
            config.routes.post("/api/v2/project", projects::create);
            config.routes.get("/api/v2/project", projects::list);
            config.routes.get("/api/v2/project/{vcs}/{org}/{name}", projects::get);
            config.routes.get("/api/v2/project/{vcs}/{org}/{name}/settings", projects::settings);
            config.routes.patch("/api/v2/project/{vcs}/{org}/{name}/settings", projects::updateSettings);
            config.routes.post("/api/v2/project/{vcs}/{org}/{name}/pipeline", pipelines::trigger);
            config.routes.get("/api/v2/project/{vcs}/{org}/{name}/pipeline", pipelines::list);
            config.routes.get("/api/v2/project/{vcs}/{org}/{name}/pipeline/mine", pipelines::mine);
            config.routes.get("/api/v2/project/{vcs}/{org}/{name}/pipeline/{number}", pipelines::byNumber);
            config.routes.get("/api/v2/pipeline/{id}", pipelines::get);
            config.routes.get("/api/v2/pipeline/{id}/config", pipelines::config);
            config.routes.get("/api/v2/pipeline/{id}/workflow", workflows::listOfPipeline);
            config.routes.get("/api/v2/workflow/{id}", workflows::get);
            config.routes.get("/api/v2/workflow/{id}/job", workflows::jobs);
            config.routes.post("/api/v2/workflow/{id}/cancel", workflowCommands::cancel);
            config.routes.post("/api/v2/workflow/{id}/rerun", workflowCommands::rerun);
            config.routes.post("/api/v2/workflow/{id}/approve/{approval_request_id}", workflowCommands::approve);
            config.routes.get("/api/v2/project/{vcs}/{org}/{name}/job/{number}", jobs::get);
            config.routes.post("/api/v2/project/{vcs}/{org}/{name}/job/{number}/cancel", workflowCommands::cancelJob);
            config.routes.get("/api/v2/insights/queue", queueInsights::get);
            config.routes.get("/api/v2/insights/fleet", fleetInsights::get);
            config.routes.post("/api/v2/fleet/pools/{pool}/pause", poolPauses::pause);
            config.routes.post("/api/v2/fleet/pools/{pool}/resume", poolPauses::resume);
            config.routes.get("/api/v2/admin/queues", queueAdmin::list);
            config.routes.get("/api/v2/admin/queues/{queue}/dead", queueAdmin::dead);
            config.routes.post("/api/v2/admin/queues/{queue}/pause", queueAdmin::pause);
            config.routes.post("/api/v2/admin/queues/{queue}/resume", queueAdmin::resume);
            config.routes.put("/api/v2/admin/queues/{queue}/limits", queueAdmin::limits);
            config.routes.post("/api/v2/admin/messages/{id}/replay", queueAdmin::replay);
            config.routes.post("/api/v2/pipeline/continue", continuations::route);
            config.routes.post("/api/v2/project/{vcs}/{org}/{name}/schedule", schedules::create);
            config.routes.get("/api/v2/project/{vcs}/{org}/{name}/schedule", schedules::list);
            config.routes.get("/api/v2/schedule/{id}", schedules::get);
            config.routes.patch("/api/v2/schedule/{id}", schedules::update);
            config.routes.delete("/api/v2/schedule/{id}", schedules::delete);
            config.routes.post("/api/v2/project/{vcs}/{org}/{name}/envvar", secrets::createProjectVar);
            config.routes.get("/api/v2/project/{vcs}/{org}/{name}/envvar", secrets::listProjectVars);
            config.routes.get("/api/v2/project/{vcs}/{org}/{name}/envvar/{envvar}", secrets::getProjectVar);
            config.routes.delete("/api/v2/project/{vcs}/{org}/{name}/envvar/{envvar}", secrets::deleteProjectVar);
            config.routes.post("/api/v2/context", secrets::createContext);
            config.routes.get("/api/v2/context", secrets::listContexts);
            config.routes.get("/api/v2/context/{id}", secrets::getContext);
            config.routes.delete("/api/v2/context/{id}", secrets::deleteContext);
            config.routes.get("/api/v2/context/{id}/environment-variable", secrets::listContextVars);
            config.routes.put("/api/v2/context/{id}/environment-variable/{envvar}", secrets::putContextVar);
            config.routes.delete("/api/v2/context/{id}/environment-variable/{envvar}", secrets::deleteContextVar);
            config.routes.post("/api/v2/admin/master-key/rotate", secrets::rotateMasterKey);
            config.routes.get("/api/v2/orbs", orbs::list);
            config.routes.get("/api/v2/orbs/{namespace}/{name}", orbs::versions);
            config.routes.get("/api/v2/orbs/{namespace}/{name}/{version}", orbs::get);
            config.routes.put("/api/v2/orbs/{namespace}/{name}/{version}", orbs::put);
            // Outside /api/v2: a forge has no admin token; the route checks the delivery's signature instead.
            config.routes.post("/webhooks/{provider}", webhooks::receive);
            results.addRoutes(config.routes);
            agents.addRoutes(config.routes);

            // Javalin answers its own exceptions (no route, wrong method) itself unless a handler names their class.
            config.routes.exception(HttpResponseException.class, errors::handle);
            config.routes.exception(Exception.class, errors::handle);
        });
    }

    /** The names of the connectors, by which {@link GantryServer} finds their ports. */
    static final String HTTP = "http";
    static final String HTTPS = "https";

    private static Connector httpsConnector(Server server, HttpConfiguration http, String host, int port,
                                            KeyStore keys) {
        SslContextFactory.Server ssl = new SslContextFactory.Server();
        ssl.setKeyStore(keys);
        ssl.setKeyStorePassword(new String(TlsSettings.KEY_STORE_PASSWORD));
        HttpConfiguration https = new HttpConfiguration(http);
        // Whether the certificate fits the name the client asked for is the client's check, not the server's.
        https.addCustomizer(new SecureRequestCustomizer(false));
        return connector(HTTPS, server, host, port, new SslConnectionFactory(ssl, "http/1.1"),
                new HttpConnectionFactory(https));
    }

    private static Connector connector(String name, Server server, String host, int port,
                                       ConnectionFactory... factories) {
        ServerConnector connector = new ServerConnector(server, factories);
        connector.setName(name);
        connector.setHost(host);
        connector.setPort(port);
        return connector;
    }
}
