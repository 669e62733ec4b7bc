package dev.gantry.server.results;

import dev.gantry.server.auth.Access;
import dev.gantry.server.auth.ApiRoutes;
import dev.gantry.server.http.ExternalUrl;
import dev.gantry.server.storage.BlobStore;
import dev.gantry.server.storage.OutputStore;
import org.jdbi.v3.core.Jdbi;

/**
 * The user-facing job result endpoints under {@code /api/v2} (the admin token guards them there): output (also
 * followed live), artifacts and tests. {@link #close()} ends live output streams; call it before stopping HTTP.
 * Thread-safe.
 */
public final class ResultsApi implements AutoCloseable {
    private final OutputFollower follower;
    private final OutputRoutes output;
    private final ArtifactRoutes artifacts;
    private final TestRoutes tests;
    private final JobResults forPages;

    /** @param externalUrl where clients reach the server, which artifact {@code url}s start with */
    public ResultsApi(Jdbi jdbi, BlobStore blobs, OutputStore outputs, ExternalUrl externalUrl) {
        JobLookup jobs = new JobLookup(jdbi);
        this.follower = new OutputFollower(jdbi, outputs);
        this.output = new OutputRoutes(jobs, outputs, follower);
        this.artifacts = new ArtifactRoutes(jdbi, jobs, blobs, externalUrl);
        this.tests = new TestRoutes(jdbi, jobs);
        this.forPages = new JobResults(jdbi, artifacts);
    }

    /** The same results as the web UI's pages read them. */
    public JobResults forPages() {
        return forPages;
    }

    /** Adds the routes to {@code routes}, each asking {@code viewer} (a viewer of the project's organization). */
    public void addRoutes(ApiRoutes routes, Access.Rule viewer) {
        String project = "/api/v2/project/{vcs}/{org}/{name}";
        routes.get(project + "/job/{number}/output", viewer, output::output);
        routes.get(project + "/{job_number}/artifacts", viewer, artifacts::list);
        routes.get(project + "/{job_number}/artifacts/{node}/<path>", viewer, artifacts::download);
        routes.get(project + "/{job_number}/tests", viewer, tests::list);
    }

    @Override
    public void close() {
        follower.close();
    }
}
