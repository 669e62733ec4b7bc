package dev.gantry.server.results;

import dev.gantry.server.http.ApiException;
import dev.gantry.server.project.ProjectRoutes;
import dev.gantry.server.project.ProjectSlug;
import io.javalin.http.Context;
import org.jdbi.v3.core.Jdbi;

/** Finds the job a user-facing path names by project slug and job number; 404 when there is none. Thread-safe. */
final class JobLookup {
    private final Jdbi jdbi;

    JobLookup(Jdbi jdbi) {
        this.jdbi = jdbi;
    }

    /** The job of path parameters {@code vcs}, {@code org}, {@code name} and {@code parameter}. */
    JobResultsDao.Job find(Context ctx, String parameter) {
        ProjectSlug slug = ProjectRoutes.slugOf(ctx);
        String number = ctx.pathParam(parameter);
        if (!number.matches("\\d{1,18}")) {
            throw ApiException.notFound("no job " + ApiException.quote(number) + " in project " + slug);
        }
        return jdbi.withExtension(JobResultsDao.class, jobs -> jobs.find(slug.organization(), slug.name(),
                Long.parseLong(number))).orElseThrow(() -> ApiException.notFound("no job " + number + " in project "
                + slug));
    }

    /** The node {@code ?node=N} picks, checked against the job's parallelism, or -1 when there is none. */
    static int node(Context ctx, JobResultsDao.Job job) {
        String text = ctx.queryParam("node");
        if (text == null || text.isBlank()) {
            return -1;
        }
        if (!text.matches("\\d{1,9}") || Integer.parseInt(text) >= job.parallelism()) {
            throw ApiException.invalid("node", "\"node\" must be a node index from 0 to " + (job.parallelism() - 1)
                    + ", got " + ApiException.quote(text));
        }
        return Integer.parseInt(text);
    }
}
