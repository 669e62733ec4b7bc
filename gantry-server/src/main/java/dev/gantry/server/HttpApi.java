package dev.gantry.server;

import dev.gantry.server.admin.DispatchRoutes;
import dev.gantry.server.admin.QueueAdminRoutes;
import dev.gantry.server.admission.AdmissionControl;
import dev.gantry.server.agent.AgentApi;
import dev.gantry.server.auth.Access;
import dev.gantry.server.auth.AgentTokenRoutes;
import dev.gantry.server.auth.ApiAuthentication;
import dev.gantry.server.auth.ApiRoutes;
import dev.gantry.server.auth.AuditLog;
import dev.gantry.server.auth.Role;
import dev.gantry.server.auth.UserRoutes;
import dev.gantry.server.fleet.FleetInsights;
import dev.gantry.server.fleet.PoolPauses;
import dev.gantry.server.fleet.QueueInsights;
import dev.gantry.server.http.ErrorResponses;
import dev.gantry.server.http.HealthCheck;
import dev.gantry.server.http.JsonBody;
import dev.gantry.server.insights.InsightsRoutes;
import dev.gantry.server.job.JobRoutes;
import dev.gantry.server.notify.DestinationRoutes;
import dev.gantry.server.notify.OutboundWebhookRoutes;
import dev.gantry.server.orb.OrbRoutes;
import dev.gantry.server.orchestrator.WorkflowCommandRoutes;
import dev.gantry.server.pipeline.PipelineRoutes;
import dev.gantry.server.plan.Continuations;
import dev.gantry.server.project.ProjectRoutes;
import dev.gantry.server.results.ResultsApi;
import dev.gantry.server.schedule.ScheduleRoutes;
import dev.gantry.server.secret.SecretRoutes;
import dev.gantry.server.ui.WebUi;
import dev.gantry.server.usage.UsageRoutes;
import dev.gantry.server.status.StatusRoutes;
import dev.gantry.server.webhook.WebhookRoutes;
import dev.gantry.server.workflow.WorkflowRoutes;
import io.javalin.Javalin;
import io.javalin.http.HttpResponseException;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.List;
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

    /** The server's HTTP side: the Javalin instance, not started yet, and its API's route table. */
    record Api(Javalin http, List<ApiRoutes.Route> routes) {
    }

    /** A Javalin instance for {@code host} and {@code port}, and HTTPS as {@code tls} says (if not null). */
    static Api create(String host, int port, TlsSettings tls, ApiAuthentication authentication, RouteOwners owners,
                      AuditLog audit, ProjectRoutes projects, PipelineRoutes pipelines, WorkflowRoutes workflows,
                      JobRoutes jobs, WorkflowCommandRoutes workflowCommands, QueueInsights queueInsights,
                      FleetInsights fleetInsights, PoolPauses poolPauses, QueueAdminRoutes queueAdmin,
                      ServerMetrics metrics, AgentApi agents, ResultsApi results, OrbRoutes orbs,
                      WebhookRoutes webhooks, Continuations continuations, ScheduleRoutes schedules,
                      SecretRoutes secrets, UserRoutes users, AgentTokenRoutes agentTokens,
                      HealthCheck health, WebUi ui,
                      StatusRoutes status, UsageRoutes usage, DispatchRoutes dispatch,
                      AdmissionControl admission, OutboundWebhookRoutes outboundWebhooks,
                      DestinationRoutes notificationDestinations, InsightsRoutes insights) {
        ErrorResponses errors = new ErrorResponses();
        List<ApiRoutes.Route> table = new ArrayList<>();
        Javalin http = Javalin.create(config -> {
            config.jetty.host = host;
            config.jetty.port = port;
            if (tls != null) {
                // Javalin adds its HTTP connector only when there is no other, so both are added here.
                KeyStore keys = tls.keyStore();
                config.jetty.addConnector((server, connection) -> connector(HTTP, server, host, port,
                        new HttpConnectionFactory(connection)));
                config.jetty.addConnector((server, connection) -> httpsConnector(server, connection, host, tls.port(),
                        keys));
            }
            config.startup.showJavalinBanner = false;
            config.http.maxRequestSize = JsonBody.MAX_BYTES;
            config.http.prefer405over404 = true;
            config.requestLogger.http((ctx, millis) -> {
                admission.finished(ctx);
                metrics.recordRequest(ctx, millis);
            });
            config.events.serverStopping(ui::close); // live pages' streams end first: HTTP then stops at once

            // First of all: a caller over its rate, or a low-priority request while overloaded, costs nothing more.
            config.routes.before(admission);
            config.routes.before("/api/v2/*", authentication);
            config.routes.before("/api/v2/project/" + ProjectRoutes.CIRCLECI + "/*", projects::resolveById);
            config.routes.before("/api/v2/insights/" + ProjectRoutes.CIRCLECI + "/*", projects::resolveById);
            config.routes.after("/api/v2/*", audit::record);
            config.routes.before("/metrics", authentication);
            ApiRoutes api = new ApiRoutes(config.routes);
            Access.Rule viewer = new Access.InOrganization(Role.VIEWER, owners.project());
            Access.Rule member = new Access.InOrganization(Role.MEMBER, owners.project());
            Access.Rule admin = new Access.InOrganization(Role.ADMIN, owners.project());
            api.get("/metrics", Access.SITE_ADMIN, metrics::scrape);
            api.get("/api/v2/me", Access.SIGNED_IN, authentication::me);
            api.post("/api/v2/project", new Access.InOrganization(Role.ADMIN, projects::organizationOfNew),
                    projects::create);
            api.get("/api/v2/project", Access.SIGNED_IN, projects::list);
            String project = "/api/v2/project/{vcs}/{org}/{name}";
            api.get(project, viewer, projects::get);
            api.get(project + "/settings", viewer, projects::settings);
            api.patch(project + "/settings", admin, projects::updateSettings);
            api.post(project + "/pipeline", member, pipelines::trigger);
            api.get(project + "/pipeline", viewer, pipelines::list);
            api.get(project + "/pipeline/mine", viewer, pipelines::mine);
            api.get(project + "/pipeline/{number}", viewer, pipelines::byNumber);
            Access.Rule pipelineViewer = new Access.InOrganization(Role.VIEWER, owners.pipeline());
            api.get("/api/v2/pipeline/{id}", pipelineViewer, pipelines::get);
            api.get("/api/v2/pipeline/{id}/config", pipelineViewer, pipelines::config);
            api.get("/api/v2/pipeline/{id}/workflow", pipelineViewer, workflows::listOfPipeline);
            Access.Rule workflowViewer = new Access.InOrganization(Role.VIEWER, owners.workflow());
            Access.Rule workflowMember = new Access.InOrganization(Role.MEMBER, owners.workflow());
            api.get("/api/v2/workflow/{id}", workflowViewer, workflows::get);
            api.get("/api/v2/workflow/{id}/job", workflowViewer, workflows::jobs);
            api.post("/api/v2/workflow/{id}/cancel", workflowMember, workflowCommands::cancel);
            api.post("/api/v2/workflow/{id}/rerun", workflowMember, workflowCommands::rerun);
            api.post("/api/v2/workflow/{id}/approve/{approval_request_id}", workflowMember, workflowCommands::approve);
            api.get(project + "/job/{number}", viewer, jobs::get);
            api.post(project + "/job/{number}/cancel", member, workflowCommands::cancelJob);
            results.addRoutes(api, viewer);
            // CircleCI's Insights API for a project, read like its pipelines (InsightsRoutes).
            String projectInsights = "/api/v2/insights/{vcs}/{org}/{name}";
            String workflowInsights = projectInsights + "/workflows/{workflow_name}";
            api.get(projectInsights + "/workflows", viewer, insights::workflows);
            api.get(workflowInsights, viewer, insights::runs);
            api.get(workflowInsights + "/jobs", viewer, insights::jobs);
            api.get(workflowInsights + "/summary", viewer, insights::summary);
            api.get(workflowInsights + "/test-metrics", viewer, insights::testMetrics);
            api.get(projectInsights + "/flaky-tests", viewer, insights::flakyTests);
            api.get(projectInsights + "/branches", viewer, insights::branches);
            api.get("/api/v2/insights/queue", Access.SIGNED_IN, queueInsights::get);
            api.get("/api/v2/insights/fleet", Access.SIGNED_IN, fleetInsights::get);
            api.post("/api/v2/fleet/pools/{pool}/pause", Access.SITE_ADMIN, poolPauses::pause);
            api.post("/api/v2/fleet/pools/{pool}/resume", Access.SITE_ADMIN, poolPauses::resume);
            api.get("/api/v2/admin/queues", Access.SITE_ADMIN, queueAdmin::list);
            api.get("/api/v2/admin/queues/{queue}/dead", Access.SITE_ADMIN, queueAdmin::dead);
            api.post("/api/v2/admin/queues/{queue}/pause", Access.SITE_ADMIN, queueAdmin::pause);
            api.post("/api/v2/admin/queues/{queue}/resume", Access.SITE_ADMIN, queueAdmin::resume);
            api.put("/api/v2/admin/queues/{queue}/limits", Access.SITE_ADMIN, queueAdmin::limits);
            api.post("/api/v2/admin/messages/{id}/replay", Access.SITE_ADMIN, queueAdmin::replay);
            api.get("/api/v2/admin/dispatch", Access.SITE_ADMIN, dispatch::get);
            api.post("/api/v2/admin/dispatch/pause", Access.SITE_ADMIN, dispatch::pause);
            api.post("/api/v2/admin/dispatch/resume", Access.SITE_ADMIN, dispatch::resume);
            api.put("/api/v2/admin/dispatch/ramp", Access.SITE_ADMIN, dispatch::ramp);
            api.post("/api/v2/admin/master-key/rotate", Access.SITE_ADMIN, secrets::rotateMasterKey);
            api.post("/api/v2/pipeline/continue", Access.OPEN, continuations::route);
            api.post(project + "/schedule", admin, schedules::create);
            api.get(project + "/schedule", viewer, schedules::list);
            api.get("/api/v2/schedule/{id}", new Access.InOrganization(Role.VIEWER, owners.schedule()), schedules::get);
            Access.Rule scheduleAdmin = new Access.InOrganization(Role.ADMIN, owners.schedule());
            api.patch("/api/v2/schedule/{id}", scheduleAdmin, schedules::update);
            api.delete("/api/v2/schedule/{id}", scheduleAdmin, schedules::delete);
            api.post(project + "/envvar", admin, secrets::createProjectVar);
            api.get(project + "/envvar", viewer, secrets::listProjectVars);
            api.get(project + "/envvar/{envvar}", viewer, secrets::getProjectVar);
            api.delete(project + "/envvar/{envvar}", admin, secrets::deleteProjectVar);
            Access.Rule ownerAdmin = new Access.InOrganization(Role.ADMIN, secrets::ownerOrganization);
            api.post("/api/v2/context", ownerAdmin, secrets::createContext);
            api.get("/api/v2/context", new Access.InOrganization(Role.VIEWER, secrets::ownerOrganization),
                    secrets::listContexts);
            Access.Rule contextViewer = new Access.InOrganization(Role.VIEWER, owners.context());
            Access.Rule contextAdmin = new Access.InOrganization(Role.ADMIN, owners.context());
            api.get("/api/v2/context/{id}", contextViewer, secrets::getContext);
            api.delete("/api/v2/context/{id}", contextAdmin, secrets::deleteContext);
            api.get("/api/v2/context/{id}/environment-variable", contextViewer, secrets::listContextVars);
            api.put("/api/v2/context/{id}/environment-variable/{envvar}", contextAdmin, secrets::putContextVar);
            api.delete("/api/v2/context/{id}/environment-variable/{envvar}", contextAdmin, secrets::deleteContextVar);
            api.post("/api/v2/context/{id}/restrictions", contextAdmin, secrets::restrict);
            api.get("/api/v2/context/{id}/restrictions", contextViewer, secrets::restrictions);
            api.delete("/api/v2/context/{id}/restrictions/{restriction_id}", contextAdmin, secrets::unrestrict);
            api.get("/api/v2/orbs", Access.SIGNED_IN, orbs::list);
            api.get("/api/v2/orbs/{namespace}/{name}", Access.SIGNED_IN, orbs::versions);
            api.get("/api/v2/orbs/{namespace}/{name}/{version}", Access.SIGNED_IN, orbs::get);
            // An orb namespace is the organization of the same name: its admins publish in it.
            api.put("/api/v2/orbs/{namespace}/{name}/{version}",
                    new Access.InOrganization(Role.ADMIN, RouteOwners.named("namespace")), orbs::put);
            api.post("/api/v2/user", Access.SITE_ADMIN, users::create);
            api.get("/api/v2/user", Access.SITE_ADMIN, users::list);
            Access.Rule self = new Access.Self("login");
            api.post("/api/v2/user/{login}/token", self, users::issueToken);
            api.get("/api/v2/user/{login}/token", self, users::tokens);
            api.delete("/api/v2/user/{login}/token/{id}", self, users::revokeToken);
            String organization = "/api/v2/organization/{org}";
            api.get(organization + "/member", new Access.InOrganization(Role.VIEWER, RouteOwners.named("org")),
                    users::members);
            Access.Rule organizationAdmin = new Access.InOrganization(Role.ADMIN, RouteOwners.named("org"));
            api.put(organization + "/member/{login}", organizationAdmin, users::putMember);
            api.delete(organization + "/member/{login}", organizationAdmin, users::removeMember);
            api.get(organization + "/audit-log", organizationAdmin, audit::ofOrganization);
            api.get(organization + "/group", new Access.InOrganization(Role.VIEWER, RouteOwners.named("org")),
                    users::groups);
            api.put(organization + "/group/{group}/member/{login}", organizationAdmin, users::addToGroup);
            api.delete(organization + "/group/{group}/member/{login}", organizationAdmin, users::removeFromGroup);
            api.get("/api/v2/audit-log", Access.SITE_ADMIN, audit::all);
            // The usage ledger (docs/usage.md): the report limits itself to the caller's organizations.
            api.get("/api/v2/insights/usage", Access.SIGNED_IN, usage::report);
            api.get(organization + "/usage-settings", new Access.InOrganization(Role.VIEWER,
                    RouteOwners.named("org")), usage::settings);
            api.put(organization + "/usage-budget", organizationAdmin, usage::putBudget);
            api.put("/api/v2/admin/organization/{org}/charging", Access.SITE_ADMIN, usage::putCharging);
            api.post("/api/v2/admin/usage/backfill", Access.SITE_ADMIN, usage::backfill);
            api.post(organization + "/agent-token", organizationAdmin, agentTokens::issue);
            api.get(organization + "/agent-token", organizationAdmin, agentTokens::list);
            api.delete(organization + "/agent-token/{id}", organizationAdmin, agentTokens::revoke);
            // The status page (issue 32): public and cacheable, served from memory so it answers while the database
            // does not; an admin may add a note to an incident, and nobody may hide one (there is no such route).
            config.routes.get(StatusRoutes.JSON, status::json);
            config.routes.get(StatusRoutes.ATOM, status::atom);
            api.post(StatusRoutes.NOTES, Access.SITE_ADMIN, status::addNote);
            // Project webhooks, CircleCI's /webhook API, and their delivery log (docs/notifications.md).
            outboundWebhooks.addRoutes(api);
            // Slack, e-mail and commit statuses, with their rules, per project.
            notificationDestinations.addRoutes(api, project, viewer, admin);
            table.addAll(api.table());
            // Outside /api/v2: a forge has no API token; the route checks the delivery's signature instead.
            config.routes.post("/webhooks/{provider}", webhooks::receive);
            config.routes.get("/healthz", health::check);
            ui.addRoutes(config.routes);
            agents.addRoutes(config.routes);

            // Javalin answers its own exceptions (no route, wrong method) itself unless a handler names their class.
            config.routes.exception(HttpResponseException.class, errors::handle);
            config.routes.exception(Exception.class, errors::handle);
        });
        return new Api(http, List.copyOf(table));
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
