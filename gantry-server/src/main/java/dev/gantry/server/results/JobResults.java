package dev.gantry.server.results;

import io.javalin.http.Context;
import java.io.IOException;
import java.util.List;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;

/**
 * What the web UI reads of a job's results, shaped for its pages rather than CircleCI's lists: the tests failures
 * first with counts by outcome, the artifacts with their sizes, and an artifact's download, served exactly as the
 * API serves it (an attachment in a sandbox). The caller has checked who may read the job. Thread-safe.
 */
public final class JobResults {
    private final Jdbi jdbi;
    private final ArtifactRoutes artifacts;

    JobResults(Jdbi jdbi, ArtifactRoutes artifacts) {
        this.jdbi = jdbi;
        this.artifacts = artifacts;
    }

    /**
     * A job's tests by outcome ({@code failed} counts errors too) and how many match a page's filter.
     */
    public record TestCounts(long passed, long failed, long skipped, long matching) {
        public long total() {
            return passed + failed + skipped;
        }
    }

    /** One test's result; {@code message} is what the report said of a failure, error or skip. */
    public record Test(int nodeIndex, String classname, String name, String file, String result, double runTime,
                       String message) {
        public boolean failed() {
            return result.equals("failure") || result.equals("error");
        }
    }

    /** A page of a job's tests, failures first. */
    public record TestPage(TestCounts counts, List<Test> tests) {
    }

    /** One artifact of a job; {@code size} in bytes. */
    public record Artifact(int nodeIndex, String path, long size) {
        /** The path with each segment percent-encoded, for a download URL. */
        public String encodedPath() {
            return ArtifactRoutes.encode(path);
        }
    }

    /** A job's first artifacts, and how many it has in all. */
    public record ArtifactList(List<Artifact> artifacts, long total) {
        public boolean capped() {
            return artifacts.size() < total;
        }
    }

    /**
     * Tests of {@code jobId} whose class, name or file contains {@code filter} (any case, plain text; {@code ""} for
     * all), failures and errors first, from the {@code offset}-th on, at most {@code limit}.
     */
    public TestPage tests(UUID jobId, String filter, int offset, int limit) {
        return jdbi.withExtension(JobResultsDao.class, dao -> new TestPage(dao.testCounts(jobId, filter),
                dao.failuresFirst(jobId, filter, offset, limit)));
    }

    /** The first {@code limit} artifacts of {@code jobId}, in node then path order. */
    public ArtifactList artifacts(UUID jobId, int limit) {
        return jdbi.withExtension(JobResultsDao.class, dao -> new ArtifactList(dao.artifactsWithSizes(jobId, limit),
                dao.artifactCount(jobId)));
    }

    /** Answers {@code ctx} with an artifact of {@code jobId} as the API's download does; 404 when there is none. */
    public void download(Context ctx, UUID jobId, String node, String path) throws IOException {
        artifacts.send(ctx, jobId, node, path);
    }
}
