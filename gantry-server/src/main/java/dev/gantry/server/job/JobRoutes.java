package dev.gantry.server.job;

import dev.gantry.server.fleet.FleetView;
import dev.gantry.server.http.ApiException;
import dev.gantry.server.http.ExternalUrl;
import dev.gantry.server.http.Json;
import dev.gantry.server.http.PathParams;
import dev.gantry.server.project.ProjectRoutes;
import dev.gantry.server.project.ProjectSlug;
import io.javalin.http.Context;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.transaction.TransactionIsolationLevel;

/**
 * {@code GET /api/v2/project/{vcs}/{org}/{name}/job/{number}}: a job's details, its steps and parallel runs; 400 for
 * a number that is not a positive whole number, 404 for an unknown project or job. Thread-safe.
 */
public final class JobRoutes {
    private final Jdbi jdbi;
    private final FleetView fleet;
    private final InstantSource clock;
    private final ExternalUrl externalUrl;

    /**
     * @param jdbi        with the SqlObject plugin installed
     * @param externalUrl where clients reach the server, which {@code web_url} starts with
     */
    public JobRoutes(Jdbi jdbi, FleetView fleet, InstantSource clock, ExternalUrl externalUrl) {
        this.jdbi = jdbi;
        this.fleet = fleet;
        this.clock = clock;
        this.externalUrl = externalUrl;
    }

    /** Why the job waits, when it is blocked or queued; else null. */
    private Waiting waiting(Handle h, JobDao jobs, Job job) {
        Instant now = clock.instant();
        return switch (job.status()) {
            case "blocked" -> Waiting.blocked(jobs.upstream(job.id()), job.createdAt(), now);
            case "queued" -> fleet.placementOf(h, job.id(), now)
                    .map(placement -> Waiting.queued(placement, job.queuedAt(), now))
                    .orElse(null);
            default -> null;
        };
    }

    /** The job's page in the web UI, on the external URL (never the request's Host). */
    private String webUrl(Job job) {
        return externalUrl.of("/jobs/" + new ProjectSlug(job.organization(), job.projectName()) + "/" + job.number());
    }

    public void get(Context ctx) {
        ProjectSlug slug = ProjectRoutes.slugOf(ctx);
        long number = PathParams.positiveNumber(ctx, "number");
        Json.respond(ctx, 200, details(slug, number)
                .orElseThrow(() -> ApiException.notFound("no job " + number + " in project " + slug)));
    }

    /** The job {@code number} of the project, as the API and the web UI show it; empty when there is none. */
    public Optional<JobDetailsJson> details(ProjectSlug slug, long number) {
        // One snapshot for the job, its steps and its tasks: an agent reporting meanwhile cannot tear the view.
        return jdbi.inTransaction(TransactionIsolationLevel.REPEATABLE_READ, h -> {
            JobDao jobs = h.attach(JobDao.class);
            Optional<Job> job = jobs.find(slug.organization(), slug.name(), number);
            return job.map(j -> JobDetailsJson.of(j, jobs.steps(j.id()), jobs.tasks(j.id()), waiting(h, jobs, j),
                    webUrl(j)));
        });
    }
}
