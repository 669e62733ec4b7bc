package dev.gantry.server.ui;

import dev.gantry.server.auth.ApiAuthentication;
import dev.gantry.server.auth.AuditLog;
import dev.gantry.server.auth.Principal;
import dev.gantry.server.auth.Role;
import dev.gantry.server.http.ApiException;
import dev.gantry.server.http.ErrorResponses;
import dev.gantry.server.job.JobDetailsJson;
import dev.gantry.server.job.JobRoutes;
import dev.gantry.server.orchestrator.WorkflowCommands;
import dev.gantry.server.project.ProjectSlug;
import dev.gantry.server.results.JobResults;
import dev.gantry.server.status.StatusPage;
import dev.gantry.server.status.StatusReport;
import dev.gantry.server.status.StatusRoutes;
import dev.gantry.server.storage.OutputStore;
import gg.jte.ContentType;
import gg.jte.TemplateEngine;
import gg.jte.output.StringOutput;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;

/**
 * The web UI: server-rendered pages (JTE templates under {@code src/main/jte}) that read without JavaScript, with
 * server-sent events for the live parts (a running pipeline's graph, a running job's steps, status and output:
 * {@link LiveStreams}) and plain forms for actions (approve, cancel, rerun, rerun from failed), each checked against
 * the caller's role and the session's CSRF token. Pages are for a signed-in session ({@link UiSessions}); without
 * one they send the browser to the sign-in page. Thread-safe.
 */
public final class WebUi implements AutoCloseable {
    /** The most of a node's output a job page shows; the rest is in the raw download. */
    static final int SHOWN_OUTPUT_BYTES = 1 << 20;
    private static final Map<String, Asset> ASSETS = Map.of(
            "gantry.css", new Asset("/ui/gantry.css", "text/css; charset=utf-8"),
            "live.js", new Asset("/ui/live.js", "text/javascript; charset=utf-8"),
            "htmx.min.js", new Asset("/META-INF/resources/webjars/htmx.org/2.0.7/dist/htmx.min.js",
                    "text/javascript; charset=utf-8"));

    private final UiSessions sessions;
    private final UiReads reads;
    private final JobRoutes jobs;
    private final WorkflowCommands commands;
    private final OutputStore output;
    private final AuditLog audit;
    private final InstantSource clock;
    private final StatusPage status;
    private final JobTabs tabs;
    private final InsightPages insights;
    private final UsagePages usage;
    private final TemplateEngine templates = TemplateEngine.createPrecompiled(ContentType.Html);
    private final ErrorResponses errors = new ErrorResponses();
    private final LiveChanges changes;
    private final LiveStreams streams;

    /** @param metrics where the live pages' open streams are counted ({@code gantry_ui_live_streams}) */
    public WebUi(Jdbi jdbi, ApiAuthentication authentication, JobRoutes jobs, WorkflowCommands commands,
                 OutputStore output, JobResults results, AuditLog audit, StatusPage status, InsightPages insights,
                 UsagePages usage, MeterRegistry metrics, InstantSource clock, SecureRandom random) {
        this.sessions = new UiSessions(jdbi, authentication, clock, random);
        this.reads = new UiReads(jdbi);
        this.jobs = jobs;
        this.commands = commands;
        this.output = output;
        this.audit = audit;
        this.clock = clock;
        this.status = status;
        this.tabs = new JobTabs(results, output, reads);
        this.insights = insights;
        this.usage = usage;
        this.changes = new LiveChanges(jdbi, output);
        this.streams = new LiveStreams(this, changes, reads, output, clock, LiveStreams.MAX_STREAMS);
        Gauge.builder("gantry.ui.live.streams", streams::open)
                .description("Live web pages' event streams open on this server (at most "
                        + LiveStreams.MAX_STREAMS + ")")
                .register(metrics);
        Gauge.builder("gantry.ui.live.watched", changes::watchedKeys)
                .description("Jobs and pipelines the live pages of this server watch, each read once a tick")
                .register(metrics);
    }

    /** Ends the live pages' streams (their browsers reconnect to another server) and stops their watcher. */
    @Override
    public void close() {
        changes.close();
        streams.close();
    }

    // ---- page models, one per template ----

    /** What every page shows around its content: the title, who is signed in, the breadcrumbs. */
    public record Chrome(String title, String user, String csrf, List<Crumb> crumbs) {
    }

    public record Crumb(String label, String href) {
    }

    public record SignInPage(Chrome chrome, String error, String next) {
    }

    public record ProjectsPage(Chrome chrome, List<UiReads.ProjectRow> projects) {
    }

    public record PipelinesPage(Chrome chrome, ProjectSlug slug, String branch, UiReads.PipelinePage page) {
        public String olderHref() {
            return "/pipelines/" + slug + "?" + (branch == null ? "" : "branch=" + url(branch) + "&") + "before="
                    + page.nextBefore();
        }
    }

    public record WorkflowPanel(UiReads.WorkflowView workflow, WorkflowGraph graph) {
    }

    public record PipelinePage(Chrome chrome, UiReads.PipelineHeader pipeline, List<WorkflowPanel> workflows,
                               boolean canAct, boolean live, Instant now) {
        /** The page's event stream while the pipeline runs; null once it has finished. */
        public String liveUrl() {
            return live ? "/pipelines/" + pipeline.slug() + "/" + pipeline.number() + "/events" : null;
        }
    }

    /**
     * A step of a job page: its summary, and its output as finished lines and the last line while it may grow
     * ({@link LiveOutput}).
     */
    public record StepOutput(int index, String name, String status, Integer exitCode, String duration, String lines,
                             String tail, boolean open) {
    }

    /**
     * @param pipeline the number of the job's pipeline
     * @param cursor   where the page is in the node's output, for its event stream; null once the job has ended
     */
    public record JobPage(Chrome chrome, ProjectSlug slug, long pipeline, JobDetailsJson job, int node,
                          List<StepOutput> steps, boolean truncated, long outputLength, boolean live, boolean canAct,
                          LiveOutput.Cursor cursor) {
        public String base() {
            return "/jobs/" + slug + "/" + job.number();
        }

        /** The page's event stream while the job runs; null once it has ended. */
        public String liveUrl() {
            return live && cursor != null ? base() + "/events?node=" + node : null;
        }

        /** Where the stream starts: the page's place in the output ({@link LiveOutput.Cursor#id()}). */
        public String liveFrom() {
            return live && cursor != null ? cursor.id() : null;
        }
    }

    public record ErrorPage(Chrome chrome, int status, String message) {
        public String title() {
            return switch (status) {
                case 404 -> "Not found";
                case 401, 403 -> "Not allowed";
                case 503 -> "Unavailable for a moment";
                default -> "Something went wrong";
            };
        }
    }

    public record StatusView(Chrome chrome, StatusReport report) {
    }

    // ---- routes ----

    public void addRoutes(RoutesConfig routes) {
        routes.get("/", ctx -> ctx.redirect(sessions.of(ctx).isPresent() ? "/projects" : "/sign-in"));
        routes.get("/assets/{name}", this::asset);
        // Public and cacheable, from what the status page last computed: it answers while the database is down.
        routes.get(StatusRoutes.PAGE, ctx -> {
            render(ctx, 200, "status.jte", new StatusView(chrome("Status", null, List.of()), status.current()));
            ctx.header("Cache-Control", "public, max-age=" + StatusRoutes.MAX_AGE_SECONDS);
        });
        routes.get("/sign-in", ctx -> render(ctx, 200, "sign_in.jte",
                new SignInPage(chrome("Sign in", null, List.of()), null, safeNext(ctx.queryParam("next")))));
        routes.post("/sign-in", this::signIn);
        routes.post("/sign-out", page((ctx, session) -> {
            if (!UiSessions.sameOrigin(ctx) || !UiSessions.csrfMatches(ctx, session)) {
                throw ApiException.forbidden("this form has expired or did not come from this server");
            }
            sessions.signOut(ctx);
            ctx.redirect("/sign-in", io.javalin.http.HttpStatus.SEE_OTHER);
        }));
        routes.get("/projects", page(this::projects));
        routes.get("/pipelines/{vcs}/{org}/{name}", page(this::pipelines));
        routes.get("/pipelines/{vcs}/{org}/{name}/{number}", page(this::pipeline));
        routes.get("/pipelines/{vcs}/{org}/{name}/{number}/events",
                page((ctx, s) -> streams.pipeline(ctx, s, visibleSlug(ctx, s), number(ctx))));
        routes.get("/jobs/{vcs}/{org}/{name}/{number}", page(this::job));
        routes.get("/jobs/{vcs}/{org}/{name}/{number}/events", page((ctx, s) -> {
            ProjectSlug slug = visibleSlug(ctx, s);
            long number = number(ctx);
            JobDetailsJson job = jobs.details(slug, number)
                    .orElseThrow(() -> ApiException.notFound("no job " + number + " in project " + slug));
            streams.job(ctx, s, slug, job, node(ctx, job.parallelism()));
        }));
        // Fleet, queues and insights: models and who sees what in InsightPages.
        routes.get("/fleet", page((ctx, s) -> render(ctx, 200, "fleet.jte",
                insights.fleet(chrome("Fleet", s, List.of()), s.principal(), clock.instant()))));
        routes.get("/queues", page((ctx, s) -> render(ctx, 200, "queues.jte",
                insights.queues(chrome("Queues", s, List.of()), s.principal(), clock.instant()))));
        routes.get("/insights/{vcs}/{org}/{name}", page(this::insights));
        // Usage: the organizations the reader is in, as the usage API; naming another is a 403 (UsagePages).
        routes.get("/usage", page((ctx, s) -> render(ctx, 200, "usage.jte", usage.page(chrome("Usage", s,
                List.of()), s.principal(), ctx.queryParam("org"), ctx.queryParam("from"), ctx.queryParam("to")))));
        routes.get("/usage/csv", page((ctx, s) -> usage.csv(ctx, s.principal())));
        routes.get("/jobs/{vcs}/{org}/{name}/{number}/raw", page(this::raw));
        routes.get("/jobs/{vcs}/{org}/{name}/{number}/tests", page((ctx, s) -> tab(ctx, s, "tests", tabs::tests)));
        routes.get("/jobs/{vcs}/{org}/{name}/{number}/artifacts",
                page((ctx, s) -> tab(ctx, s, "artifacts", tabs::artifacts)));
        routes.get("/jobs/{vcs}/{org}/{name}/{number}/artifacts/{node}/<path>",
                page((ctx, s) -> tabs.download(ctx, visibleJob(ctx, s))));
        routes.get("/jobs/{vcs}/{org}/{name}/{number}/search", page((ctx, s) -> tab(ctx, s, "search", tabs::search)));
        routes.post("/jobs/{vcs}/{org}/{name}/{number}/cancel", action((ctx, session, slug) -> {
            long number = number(ctx);
            commands.cancelJob(slug.organization(), slug.name(), number, session.principal().login());
            return "/jobs/" + slug + "/" + number;
        }));
        routes.post("/pipelines/{vcs}/{org}/{name}/{number}/workflows/{workflow}/cancel",
                action((ctx, session, slug) -> {
                    commands.cancel(workflowOf(ctx, slug), session.principal().login());
                    return "/pipelines/" + slug + "/" + number(ctx);
                }));
        routes.post("/pipelines/{vcs}/{org}/{name}/{number}/workflows/{workflow}/rerun",
                action((ctx, session, slug) -> {
                    boolean fromFailed = "true".equals(ctx.formParam("from_failed"));
                    commands.rerun(workflowOf(ctx, slug), fromFailed
                            ? new WorkflowCommands.Rerun(true, java.util.Set.of(), false)
                            : WorkflowCommands.Rerun.ALL, session.principal().login());
                    return "/pipelines/" + slug + "/" + number(ctx);
                }));
        routes.post("/pipelines/{vcs}/{org}/{name}/{number}/workflows/{workflow}/approve/{job}",
                action((ctx, session, slug) -> {
                    commands.approve(workflowOf(ctx, slug), uuid(ctx.pathParam("job")), session.principal().login());
                    return "/pipelines/" + slug + "/" + number(ctx);
                }));
    }

    // ---- handlers ----

    private void signIn(Context ctx) {
        String next = safeNext(ctx.formParam("next"));
        try {
            if (!UiSessions.sameOrigin(ctx)) {
                throw ApiException.forbidden("this form must be sent from this server's own sign-in page");
            }
            String token = ctx.formParam("token");
            if (token == null || token.isBlank()) {
                throw ApiException.unauthorized("enter your API token, or the admin token from "
                        + "$GANTRY_HOME/admin-token");
            }
            sessions.signIn(ctx, token);
        } catch (Exception failure) {
            ErrorResponses.Answer answer = errors.answer(failure, ctx);
            render(ctx, answer.status(), "sign_in.jte", new SignInPage(chrome("Sign in", null, List.of()),
                    answer.message(), next));
            return;
        }
        ctx.redirect(next, io.javalin.http.HttpStatus.SEE_OTHER);
    }

    private void projects(Context ctx, UiSessions.Session session) {
        render(ctx, 200, "projects.jte", new ProjectsPage(chrome("Projects", session, List.of()),
                reads.projects(session.principal())));
    }

    private void pipelines(Context ctx, UiSessions.Session session) {
        ProjectSlug slug = visibleSlug(ctx, session);
        UUID projectId = reads.projectId(slug).orElseThrow(() -> notFound(slug));
        String branch = Optional.ofNullable(ctx.queryParam("branch")).filter(b -> !b.isBlank()).orElse(null);
        Long before = Optional.ofNullable(ctx.queryParam("before")).filter(b -> b.matches("\\d{1,18}"))
                .map(Long::parseLong).orElse(null);
        render(ctx, 200, "pipelines.jte", new PipelinesPage(chrome(slug.name(), session,
                List.of(new Crumb("Projects", "/projects"))), slug, branch, reads.pipelines(projectId, branch,
                before)));
    }

    private void insights(Context ctx, UiSessions.Session session) {
        ProjectSlug slug = visibleSlug(ctx, session);
        UUID projectId = reads.projectId(slug).orElseThrow(() -> notFound(slug));
        String branch = Optional.ofNullable(ctx.queryParam("branch")).filter(b -> !b.isBlank()).orElse(null);
        render(ctx, 200, "insights.jte", insights.insights(chrome("Insights", session, List.of(
                new Crumb("Projects", "/projects"), new Crumb(slug.name(), "/pipelines/" + slug))), slug, projectId,
                InsightPages.days(ctx.queryParam("days")), branch, clock.instant()));
    }

    private void pipeline(Context ctx, UiSessions.Session session) {
        ProjectSlug slug = visibleSlug(ctx, session);
        long number = number(ctx);
        render(ctx, 200, "pipeline.jte", pipelinePage(session, slug, number)
                .orElseThrow(() -> ApiException.notFound("no pipeline " + number + " in project " + slug)));
    }

    /** Pipeline {@code number} of {@code slug} as its page shows it now, for {@code session}; empty when none. */
    Optional<PipelinePage> pipelinePage(UiSessions.Session session, ProjectSlug slug, long number) {
        return reads.pipeline(slug, number).map(pipeline -> {
            List<WorkflowPanel> panels = new ArrayList<>();
            for (UiReads.WorkflowView workflow : reads.workflows(pipeline.id())) {
                panels.add(new WorkflowPanel(workflow, WorkflowGraph.of(workflow.jobs())));
            }
            boolean live = pipeline.state().equals("pending") || pipeline.state().equals("setup-pending")
                    || panels.stream().anyMatch(p -> !p.workflow().terminal());
            return new PipelinePage(chrome("Pipeline " + number, session,
                    List.of(new Crumb("Projects", "/projects"), new Crumb(slug.name(), "/pipelines/" + slug))),
                    pipeline, panels, can(session, slug, Role.MEMBER), live, clock.instant());
        });
    }

    private void job(Context ctx, UiSessions.Session session) {
        ProjectSlug slug = visibleSlug(ctx, session);
        long number = number(ctx);
        JobDetailsJson job = jobs.details(slug, number)
                .orElseThrow(() -> ApiException.notFound("no job " + number + " in project " + slug));
        int node = node(ctx, job.parallelism());
        List<UiReads.StepOffset> offsets = reads.stepOffsets(job.id()).stream().filter(o -> o.node() == node)
                .toList();
        long length = read(() -> output.length(job.id(), node));
        long shownFrom = Math.max(0, length - SHOWN_OUTPUT_BYTES);
        byte[] shown = read(() -> {
            try (InputStream in = output.read(job.id(), node, shownFrom)) {
                return in.readNBytes((int) (length - shownFrom));
            }
        });
        // The same cut a live stream makes, so that the stream goes on from exactly where the page is.
        boolean live = live(job);
        LiveOutput.Delta cut = LiveOutput.advance(LiveOutput.Cursor.start(shownFrom), shown, offsets, live);
        render(ctx, 200, "job.jte", jobPage(session, slug, reads.pipelineNumber(job.pipeline().id()), job, node,
                steps(job, node, cut.parts(), clock.instant()), shownFrom > 0, length, cut.next()));
    }

    /** Job {@code number} of {@code slug} now, as the API shows it. */
    Optional<JobDetailsJson> jobDetails(ProjectSlug slug, long number) {
        return jobs.details(slug, number);
    }

    /**
     * A job page's model; {@code pipeline} is the number of the job's pipeline, read once by the caller (a live
     * page's stream renders the head again at every change), and {@code cursor} is where its stream starts.
     */
    JobPage jobPage(UiSessions.Session session, ProjectSlug slug, long pipeline, JobDetailsJson job, int node,
                    List<StepOutput> steps, boolean truncated, long length, LiveOutput.Cursor cursor) {
        return new JobPage(chrome("Job " + job.number() + " " + job.name(), session, jobCrumbs(slug, pipeline)), slug,
                pipeline, job, node, steps, truncated, length, live(job), can(session, slug, Role.MEMBER), cursor);
    }

    /** Where a job page sits: its project's pipelines, then its pipeline. */
    private static List<Crumb> jobCrumbs(ProjectSlug slug, long pipeline) {
        return List.of(new Crumb("Projects", "/projects"), new Crumb(slug.name(), "/pipelines/" + slug),
                new Crumb("Pipeline " + pipeline, "/pipelines/" + slug + "/" + pipeline));
    }

    /** Whether the job may still change: it has not ended. */
    static boolean live(JobDetailsJson job) {
        return !List.of("success", "failed", "canceled", "not_run", "infrastructure_fail").contains(job.status());
    }

    /** The steps of {@code node}, each with its output from {@code parts} (none there: empty). */
    static List<StepOutput> steps(JobDetailsJson job, int node, List<LiveOutput.Part> parts, Instant now) {
        List<StepOutput> steps = new ArrayList<>();
        for (JobDetailsJson.Step step : job.steps()) {
            for (JobDetailsJson.Action action : step.actions()) {
                if (action.index() != node) {
                    continue;
                }
                StringBuilder lines = new StringBuilder();
                String tail = "";
                for (LiveOutput.Part part : parts) {
                    if (part.step() == action.step()) {
                        lines.append(part.lines());
                        tail = part.tail();
                    }
                }
                Instant started = action.startTime() == null ? null : Instant.parse(action.startTime());
                Instant stopped = action.endTime() == null ? null : Instant.parse(action.endTime());
                String duration = started == null ? "" : Format.between(started, stopped, now);
                boolean open = !action.status().equals("success");
                steps.add(new StepOutput(action.step(), action.name(), action.status(), action.exitCode(), duration,
                        lines.toString(), tail, open));
            }
        }
        return steps;
    }

    private void raw(Context ctx, UiSessions.Session session) {
        ProjectSlug slug = visibleSlug(ctx, session);
        long number = number(ctx);
        JobDetailsJson job = jobs.details(slug, number)
                .orElseThrow(() -> ApiException.notFound("no job " + number + " in project " + slug));
        int node = node(ctx, job.parallelism());
        ctx.contentType("text/plain; charset=utf-8");
        ctx.header("Content-Disposition", "inline; filename=\"job-" + number + "-node-" + node + ".log\"");
        ctx.result(read(() -> output.read(job.id(), node, 0)));
    }

    private interface Tab {
        Object model(Context ctx, JobTabs.JobHeader header) throws IOException;
    }

    /** The {@code name} tab of the job the path names (template {@code job_NAME.jte}). */
    private void tab(Context ctx, UiSessions.Session session, String name, Tab tab) throws IOException {
        JobDetailsJson job = visibleJob(ctx, session);
        ProjectSlug slug = visibleSlug(ctx, session);
        String title = Character.toUpperCase(name.charAt(0)) + name.substring(1) + " · job " + job.number() + " "
                + job.name();
        List<Crumb> crumbs = new ArrayList<>(jobCrumbs(slug, reads.pipelineNumber(job.pipeline().id())));
        crumbs.add(new Crumb("Job " + job.number(), "/jobs/" + slug + "/" + job.number()));
        JobTabs.JobHeader header = new JobTabs.JobHeader(chrome(title, session, crumbs), slug, job,
                node(ctx, job.parallelism()), name);
        render(ctx, 200, "job_" + name + ".jte", tab.model(ctx, header));
    }

    /** The job the path names, in a project the caller may see; else 404. */
    private JobDetailsJson visibleJob(Context ctx, UiSessions.Session session) {
        ProjectSlug slug = visibleSlug(ctx, session);
        long number = number(ctx);
        return jobs.details(slug, number)
                .orElseThrow(() -> ApiException.notFound("no job " + number + " in project " + slug));
    }

    private void asset(Context ctx) {
        Asset asset = ASSETS.get(ctx.pathParam("name"));
        InputStream in = asset == null ? null : WebUi.class.getResourceAsStream(asset.resource());
        if (in == null) {
            throw ApiException.notFound("no such asset");
        }
        ctx.contentType(asset.contentType());
        ctx.header("Cache-Control", "public, max-age=3600");
        ctx.result(in);
    }

    // ---- plumbing ----

    private interface PageHandler {
        void handle(Context ctx, UiSessions.Session session) throws Exception;
    }

    private interface ActionHandler {
        /** Does the action; returns where to send the browser after it. */
        String handle(Context ctx, UiSessions.Session session, ProjectSlug slug) throws Exception;
    }

    /** A page for a signed-in session: without one, the browser goes to sign in and comes back. */
    private Handler page(PageHandler handler) {
        return ctx -> {
            Optional<UiSessions.Session> session = Optional.empty();
            try {
                session = sessions.of(ctx);
                if (session.isEmpty()) {
                    if (ctx.header("HX-Request") != null) {
                        ctx.header("HX-Redirect", "/sign-in");
                        ctx.status(401);
                        return;
                    }
                    ctx.redirect("/sign-in?next=" + url(ctx.path()));
                    return;
                }
                handler.handle(ctx, session.get());
            } catch (Exception failure) {
                // The API's answer (a database outage is a 503 with Retry-After, a bug a 500 with an error id), as a page.
                ErrorResponses.Answer answer = errors.answer(failure, ctx);
                render(ctx, answer.status(), "error.jte", new ErrorPage(chrome("Error", session.orElse(null),
                        List.of(new Crumb("Projects", "/projects"))), answer.status(), answer.message()));
            }
        };
    }

    /**
     * A change made from a form: the session's CSRF token and this server's origin are required, and the caller must
     * be a member of the project's organization. The change is audited like the API's.
     */
    private Handler action(ActionHandler handler) {
        return page((ctx, session) -> {
            ProjectSlug slug = visibleSlug(ctx, session);
            try {
                if (!UiSessions.sameOrigin(ctx) || !UiSessions.csrfMatches(ctx, session)) {
                    throw ApiException.forbidden("this form has expired or did not come from this server; reload "
                            + "the page and try again");
                }
                if (!can(session, slug, Role.MEMBER)) {
                    throw ApiException.forbidden("you are a viewer in " + slug.organization() + "; members "
                            + "approve, cancel and rerun");
                }
                ctx.redirect(handler.handle(ctx, session, slug), io.javalin.http.HttpStatus.SEE_OTHER);
            } catch (ApiException refused) {
                ctx.status(refused.status()); // what the audit records; the error page follows
                throw refused;
            } finally {
                audit.recordPage(ctx, session.principal(), slug.organization());
            }
        });
    }

    /** The session whose cookie is {@code cookie}, if it is still valid. */
    Optional<UiSessions.Session> session(String cookie) {
        return sessions.byCookie(cookie);
    }

    /** {@code template} with {@code page}, as HTML. */
    String html(String template, Object page) {
        StringOutput out = new StringOutput();
        templates.render(template, page, out);
        return out.toString();
    }

    private void render(Context ctx, int status, String template, Object page) {
        String html = html(template, page);
        ctx.status(status);
        ctx.header("Cache-Control", "no-store");
        ctx.header("X-Frame-Options", "DENY");
        ctx.header("Content-Security-Policy", "default-src 'self'; style-src 'self'; img-src 'self' data:; "
                + "frame-ancestors 'none'; form-action 'self'");
        ctx.contentType("text/html; charset=utf-8");
        ctx.result(html);
    }

    private static Chrome chrome(String title, UiSessions.Session session, List<Crumb> crumbs) {
        return new Chrome(title, session == null ? null : session.principal().login(),
                session == null ? null : session.csrf(), crumbs);
    }

    /** The project the path names, when the caller may see it; else 404, so projects of others stay unknown. */
    static ProjectSlug visibleSlug(Context ctx, UiSessions.Session session) {
        ProjectSlug slug = ProjectSlug.fromPath(ctx.pathParam("vcs"), ctx.pathParam("org"), ctx.pathParam("name"))
                .orElseThrow(() -> ApiException.notFound("no such project"));
        if (!can(session, slug, Role.VIEWER)) {
            throw notFound(slug);
        }
        return slug;
    }

    static boolean can(UiSessions.Session session, ProjectSlug slug, Role least) {
        Principal caller = session.principal();
        return caller.roleIn(slug.organization()).map(role -> role.atLeast(least)).orElse(false);
    }

    /** The workflow of the path, if it belongs to the pipeline of the path; else 404. */
    private UUID workflowOf(Context ctx, ProjectSlug slug) {
        UUID workflow = uuid(ctx.pathParam("workflow"));
        UiReads.PipelineHeader pipeline = reads.pipeline(slug, number(ctx))
                .orElseThrow(() -> ApiException.notFound("no such pipeline"));
        if (reads.workflows(pipeline.id()).stream().noneMatch(w -> w.id().equals(workflow))) {
            throw ApiException.notFound("no workflow " + workflow + " in pipeline " + pipeline.number());
        }
        return workflow;
    }

    private static ApiException notFound(ProjectSlug slug) {
        return ApiException.notFound("no project " + slug + " that you can see");
    }

    private static long number(Context ctx) {
        String text = ctx.pathParam("number");
        if (!text.matches("\\d{1,18}")) {
            throw ApiException.notFound("no such number " + ApiException.quote(text));
        }
        return Long.parseLong(text);
    }

    private static int node(Context ctx, int parallelism) {
        String text = ctx.queryParam("node");
        if (text == null || !text.matches("\\d{1,9}") || Integer.parseInt(text) >= parallelism) {
            return 0;
        }
        return Integer.parseInt(text);
    }

    private static UUID uuid(String text) {
        try {
            return UUID.fromString(text);
        } catch (IllegalArgumentException e) {
            throw ApiException.notFound("no such id " + ApiException.quote(text));
        }
    }

    /** Only a path on this server: a sign-in never sends the browser elsewhere. */
    private static String safeNext(String next) {
        return next != null && next.startsWith("/") && !next.startsWith("//") && !next.contains("\\")
                ? next : "/projects";
    }

    static String url(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8);
    }

    interface Io<T> {
        T get() throws IOException;
    }

    static <T> T read(Io<T> body) {
        try {
            return body.get();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private record Asset(String resource, String contentType) {
    }
}
