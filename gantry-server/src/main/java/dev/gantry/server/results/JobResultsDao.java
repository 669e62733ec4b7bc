package dev.gantry.server.results;

import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.statement.SqlQuery;

/**
 * The reads behind the job result endpoints. A job's results are those of {@code gantry.result_nodes}: its own
 * nodes', and for a node its retry carried over, those of the attempt that ran it.
 */
@RegisterConstructorMapper(JobResultsDao.Job.class)
@RegisterConstructorMapper(JobResultsDao.Artifact.class)
@RegisterConstructorMapper(JobResultsDao.TestCase.class)
@RegisterConstructorMapper(JobResults.TestCounts.class)
@RegisterConstructorMapper(JobResults.Test.class)
@RegisterConstructorMapper(JobResults.Artifact.class)
interface JobResultsDao {
    record Job(UUID id, String status, int parallelism) {
    }

    record Artifact(int nodeIndex, String path) {
    }

    record TestCase(int nodeIndex, int seq, String classname, String name, String file, String result,
                    double runTime, String message) {
    }

    @SqlQuery("""
            SELECT j.id, j.status, j.parallelism
            FROM gantry.job j
            JOIN gantry.project p ON p.id = j.project_id
            WHERE p.organization = :organization AND p.name = :name AND j.number = :number
            """)
    Optional<Job> find(String organization, String name, long number);

    @SqlQuery("SELECT id, status, parallelism FROM gantry.job WHERE id = :id")
    Optional<Job> find(UUID id);

    /** Task statuses by node index; a node without a task row (not queued yet) is missing. */
    @SqlQuery("SELECT status FROM gantry.job_task WHERE job_id = :jobId AND node_index = :nodeIndex")
    Optional<String> taskStatus(UUID jobId, int nodeIndex);

    /** A page of the job's artifacts after ({@code node}, {@code path}), in node then bytewise path order. */
    @SqlQuery("""
            SELECT node_index, path
            FROM gantry.artifact
            WHERE (job_id, node_index) IN (SELECT * FROM gantry.result_nodes(:jobId))
              AND (node_index, path COLLATE "C") > (:node, :path COLLATE "C")
            ORDER BY node_index, path COLLATE "C"
            LIMIT :limit
            """)
    List<Artifact> artifacts(UUID jobId, int node, String path, int limit);

    /** The job whose artifact {@code path} of node {@code nodeIndex} the job shows: itself, or the one that ran it. */
    @SqlQuery("""
            SELECT job_id FROM gantry.artifact
            WHERE (job_id, node_index) IN (SELECT * FROM gantry.result_nodes(:jobId))
              AND node_index = :nodeIndex AND path = :path
            """)
    Optional<UUID> artifactOwner(UUID jobId, int nodeIndex, String path);

    /** The job whose output node {@code nodeIndex} of the job shows: itself, or the one that ran the node. */
    @SqlQuery("SELECT job_id FROM gantry.result_nodes(:jobId) WHERE node_index = :nodeIndex")
    Optional<UUID> outputOwner(UUID jobId, int nodeIndex);

    /** A page of the job's test results after ({@code node}, {@code seq}), in node then report order. */
    @SqlQuery("""
            SELECT node_index, seq, classname, name, file, result, run_time, message
            FROM gantry.test_case
            WHERE (job_id, node_index) IN (SELECT * FROM gantry.result_nodes(:jobId)) AND (node_index, seq) > (:node, :seq)
            ORDER BY node_index, seq
            LIMIT :limit
            """)
    List<TestCase> tests(UUID jobId, int node, int seq, int limit);

    /** The job's tests by outcome, and how many of them {@code filter} matches ({@link #failuresFirst}). */
    @SqlQuery("""
            SELECT count(*) FILTER (WHERE result = 'success') AS passed,
                   count(*) FILTER (WHERE result IN ('failure', 'error')) AS failed,
                   count(*) FILTER (WHERE result = 'skipped') AS skipped,
                   count(*) FILTER (WHERE strpos(lower(classname || '.' || name || ' ' || coalesce(file, '')),
                                                 lower(:filter)) > 0) AS matching
            FROM gantry.test_case
            WHERE (job_id, node_index) IN (SELECT * FROM gantry.result_nodes(:jobId))
            """)
    JobResults.TestCounts testCounts(UUID jobId, String filter);

    /**
     * The job's tests whose class, name or file contains {@code filter} (any case; {@code ""} matches all), failures
     * and errors first, each part in node then report order. Plain text, not a pattern: {@code strpos}, not
     * {@code LIKE}, so {@code %} and {@code _} are only themselves.
     */
    @SqlQuery("""
            SELECT node_index, classname, name, file, result, run_time, message
            FROM gantry.test_case
            WHERE (job_id, node_index) IN (SELECT * FROM gantry.result_nodes(:jobId))
              AND strpos(lower(classname || '.' || name || ' ' || coalesce(file, '')), lower(:filter)) > 0
            ORDER BY result IN ('failure', 'error') DESC, node_index, seq
            LIMIT :limit OFFSET :offset
            """)
    List<JobResults.Test> failuresFirst(UUID jobId, String filter, int offset, int limit);

    /** The job's first {@code limit} artifacts with their sizes, in node then bytewise path order. */
    @SqlQuery("""
            SELECT node_index, path, size
            FROM gantry.artifact
            WHERE (job_id, node_index) IN (SELECT * FROM gantry.result_nodes(:jobId))
            ORDER BY node_index, path COLLATE "C"
            LIMIT :limit
            """)
    List<JobResults.Artifact> artifactsWithSizes(UUID jobId, int limit);

    @SqlQuery("""
            SELECT count(*) FROM gantry.artifact
            WHERE (job_id, node_index) IN (SELECT * FROM gantry.result_nodes(:jobId))
            """)
    long artifactCount(UUID jobId);
}
