package dev.gantry.server.insights;

import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.statement.SqlQuery;

/**
 * The statements of a project's insights, for the page and the API alike. Workflow runs come from the view
 * {@code gantry.workflow_run} (migration V0030), where what a run is is written once: a workflow that finished with an
 * outcome (success, failed or error; canceled and not-run ones are not runs). Durations are of successful runs only,
 * from the workflow's creation to its stop (a job's from its start to its stop), as CircleCI's are. Days are UTC days.
 * Percentiles are {@code percentile_disc}: a duration or a run time that really occurred. A window is
 * {@code [since, until)} by creation time; a null branch means every branch.
 */
@RegisterConstructorMapper(InsightsDao.WorkflowRow.class)
@RegisterConstructorMapper(InsightsDao.RecoveryRow.class)
@RegisterConstructorMapper(InsightsDao.CreditRow.class)
@RegisterConstructorMapper(InsightsDao.RunRow.class)
@RegisterConstructorMapper(InsightsDao.JobRow.class)
@RegisterConstructorMapper(InsightsDao.TestRow.class)
@RegisterConstructorMapper(InsightsDao.FlakyRow.class)
@RegisterConstructorMapper(InsightsDao.TestCountRow.class)
interface InsightsDao {
    /**
     * One workflow over one day, or over the whole window when {@code day} is null. Durations in milliseconds, of
     * successful runs; {@code firstAt} and {@code lastAt} are the first and last run's creation.
     */
    record WorkflowRow(String name, LocalDate day, long runs, long successes, Long p50Ms, Long p95Ms, Long minMs,
                       Long maxMs, Long meanMs, Double stddevMs, Instant firstAt, Instant lastAt) {
    }

    /** A workflow's recoveries (a success after one or more failed runs) and their mean time, in milliseconds. */
    record RecoveryRow(String name, long recoveries, long mttrMs) {
    }

    record CreditRow(String name, long credits) {
    }

    /** A run of a workflow; {@code approval} when it holds an approval job. */
    record RunRow(UUID id, String branch, long pipelineNumber, String status, Instant createdAt, Instant stoppedAt,
                  long durationMs, long credits, boolean approval) {
    }

    /** One job name's runs: build jobs that ran to success or failure (carried-over jobs did not run). */
    record JobRow(String name, long runs, long successes, Long p50Ms, Long p95Ms, Long minMs, Long maxMs,
                  Long meanMs, Double stddevMs, Instant firstAt, Instant lastAt, long credits) {
    }

    record TestRow(String job, String classname, String name, String file, long runs, long failures,
                   double p50Seconds, double p95Seconds) {
    }

    /**
     * A flaky test, with where it flaked last: the job (by number) of its latest failure on a commit where it also
     * passed, that job's workflow and pipeline. {@code failedSeconds} is the run time of those failures.
     */
    record FlakyRow(String job, String classname, String name, String file, long timesFlaked, long commits,
                    Instant lastFlakedAt, double failedSeconds, long jobNumber, UUID workflowId, String workflowName,
                    Instant workflowCreatedAt, long pipelineNumber) {
    }

    /** The test results of one workflow run, by result. */
    record TestCountRow(UUID workflowId, long success, long failure, long error, long skipped) {
    }

    @SqlQuery("""
            SELECT r.name, CAST(r.created_at AT TIME ZONE 'UTC' AS date) AS day, count(*) AS runs,
                   count(*) FILTER (WHERE r.status = 'success') AS successes,
                   (percentile_disc(0.5) WITHIN GROUP (ORDER BY r.seconds)
                       FILTER (WHERE r.status = 'success') * 1000)::bigint AS p50_ms,
                   (percentile_disc(0.95) WITHIN GROUP (ORDER BY r.seconds)
                       FILTER (WHERE r.status = 'success') * 1000)::bigint AS p95_ms,
                   (min(r.seconds) FILTER (WHERE r.status = 'success') * 1000)::bigint AS min_ms,
                   (max(r.seconds) FILTER (WHERE r.status = 'success') * 1000)::bigint AS max_ms,
                   (avg(r.seconds) FILTER (WHERE r.status = 'success') * 1000)::bigint AS mean_ms,
                   stddev_pop(r.seconds) FILTER (WHERE r.status = 'success') * 1000 AS stddev_ms,
                   min(r.created_at) AS first_at, max(r.created_at) AS last_at
            FROM gantry.workflow_run r
            WHERE r.project_id = :projectId
              AND r.created_at >= :since AND r.created_at < :until
              AND (CAST(:branch AS text) IS NULL OR r.branch = :branch)
            GROUP BY GROUPING SETS ((r.name, CAST(r.created_at AT TIME ZONE 'UTC' AS date)), (r.name))
            ORDER BY r.name, day NULLS FIRST
            """)
    List<WorkflowRow> workflows(UUID projectId, OffsetDateTime since, OffsetDateTime until, String branch);

    /**
     * Per workflow, its recoveries: a streak of failed runs ended by a success, timed from the first failure's stop
     * to the success's stop. Runs are numbered into streaks by how many successes came before them (a success
     * closes the streak it ends).
     */
    @SqlQuery("""
            WITH numbered AS (
                SELECT r.name, r.status, r.stopped_at,
                       count(*) FILTER (WHERE r.status = 'success')
                           OVER (PARTITION BY r.name ORDER BY r.created_at, r.id)
                       - CASE WHEN r.status = 'success' THEN 1 ELSE 0 END AS streak
                FROM gantry.workflow_run r
                WHERE r.project_id = :projectId
                  AND r.created_at >= :since AND r.created_at < :until
                  AND (CAST(:branch AS text) IS NULL OR r.branch = :branch)
            ), streaks AS (
                SELECT name, min(stopped_at) FILTER (WHERE status <> 'success') AS failed_at,
                       max(stopped_at) FILTER (WHERE status = 'success') AS recovered_at
                FROM numbered
                GROUP BY name, streak
            )
            SELECT name, count(*) AS recoveries,
                   (avg(greatest(extract(epoch FROM recovered_at - failed_at), 0)) * 1000)::bigint AS mttr_ms
            FROM streaks
            WHERE failed_at IS NOT NULL AND recovered_at IS NOT NULL
            GROUP BY name
            """)
    List<RecoveryRow> recoveries(UUID projectId, OffsetDateTime since, OffsetDateTime until, String branch);

    /** Per workflow, the credits the usage ledger charged for its runs' jobs. */
    @SqlQuery("""
            SELECT r.name, sum(c.credits)::bigint AS credits
            FROM gantry.workflow_run r
            JOIN gantry.job j ON j.workflow_id = r.id
            JOIN gantry.usage_charge c ON c.job_id = j.id
            WHERE r.project_id = :projectId
              AND r.created_at >= :since AND r.created_at < :until
              AND (CAST(:branch AS text) IS NULL OR r.branch = :branch)
            GROUP BY r.name
            """)
    List<CreditRow> credits(UUID projectId, OffsetDateTime since, OffsetDateTime until, String branch);

    /** A workflow's runs, newest first, those created before {@code (beforeAt, beforeId)} when it is given. */
    @SqlQuery("""
            SELECT r.id, r.branch, r.pipeline_number, r.status, r.created_at, r.stopped_at,
                   (r.seconds * 1000)::bigint AS duration_ms,
                   (SELECT coalesce(sum(c.credits), 0) FROM gantry.job j
                    JOIN gantry.usage_charge c ON c.job_id = j.id WHERE j.workflow_id = r.id) AS credits,
                   EXISTS (SELECT 1 FROM gantry.job j WHERE j.workflow_id = r.id AND j.type = 'approval') AS approval
            FROM gantry.workflow_run r
            WHERE r.project_id = :projectId AND r.name = :workflow
              AND r.created_at >= :since AND r.created_at < :until
              AND (CAST(:branch AS text) IS NULL OR r.branch = :branch)
              AND (CAST(:beforeAt AS timestamptz) IS NULL OR (r.created_at, r.id) < (:beforeAt, CAST(:beforeId AS uuid)))
            ORDER BY r.created_at DESC, r.id DESC
            LIMIT :limit
            """)
    List<RunRow> runs(UUID projectId, String workflow, OffsetDateTime since, OffsetDateTime until, String branch,
                      OffsetDateTime beforeAt, UUID beforeId, int limit);

    /** Per job name of a workflow's jobs, those whose name contains {@code nameContains} when it is given. */
    @SqlQuery("""
            SELECT j.name, count(*) AS runs, count(*) FILTER (WHERE j.status = 'success') AS successes,
                   (percentile_disc(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM j.stopped_at - j.started_at))
                       FILTER (WHERE j.status = 'success') * 1000)::bigint AS p50_ms,
                   (percentile_disc(0.95) WITHIN GROUP (ORDER BY extract(epoch FROM j.stopped_at - j.started_at))
                       FILTER (WHERE j.status = 'success') * 1000)::bigint AS p95_ms,
                   (min(extract(epoch FROM j.stopped_at - j.started_at))
                       FILTER (WHERE j.status = 'success') * 1000)::bigint AS min_ms,
                   (max(extract(epoch FROM j.stopped_at - j.started_at))
                       FILTER (WHERE j.status = 'success') * 1000)::bigint AS max_ms,
                   (avg(extract(epoch FROM j.stopped_at - j.started_at))
                       FILTER (WHERE j.status = 'success') * 1000)::bigint AS mean_ms,
                   stddev_pop(extract(epoch FROM j.stopped_at - j.started_at))
                       FILTER (WHERE j.status = 'success') * 1000 AS stddev_ms,
                   min(j.created_at) AS first_at, max(j.created_at) AS last_at,
                   coalesce(sum((SELECT sum(c.credits) FROM gantry.usage_charge c WHERE c.job_id = j.id)), 0)::bigint
                       AS credits
            FROM gantry.job j
            JOIN gantry.workflow w ON w.id = j.workflow_id
            JOIN gantry.pipeline p ON p.id = w.pipeline_id
            WHERE j.project_id = :projectId AND w.name = :workflow
              AND j.created_at >= :since AND j.created_at < :until
              AND j.type = 'build' AND j.copied_from IS NULL
              AND j.status IN ('success', 'failed', 'infrastructure_fail')
              AND j.started_at IS NOT NULL AND j.stopped_at IS NOT NULL
              AND (CAST(:branch AS text) IS NULL OR p.branch = :branch)
              AND (CAST(:nameContains AS text) IS NULL OR strpos(j.name, :nameContains) > 0)
            GROUP BY j.name
            ORDER BY j.name COLLATE "C"
            """)
    List<JobRow> jobs(UUID projectId, String workflow, OffsetDateTime since, OffsetDateTime until, String branch,
                      String nameContains);

    /**
     * The tests of the window's jobs (skipped ones aside), or of the jobs of {@code workflowIds} when it is given,
     * by the 95th percentile of their run time, slowest first.
     */
    @SqlQuery("""
            -- Grouped by hash, each test's run times gathered in an array and its percentiles taken from that:
            -- an ordered-set aggregate in the grouping makes PostgreSQL sort all the window's results (60,000 in a
            -- month of a busy project) by three names first, which was most of the page's time. The branch is
            -- checked only when one is asked for, so the page for every branch joins no workflow or pipeline.
            SELECT job, classname, name, file, runs, failures,
                   (SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY s) FROM unnest(times) s) AS p50_seconds,
                   (SELECT percentile_disc(0.95) WITHIN GROUP (ORDER BY s) FROM unnest(times) s) AS p95_seconds
            FROM (
                SELECT j.name AS job, t.classname, t.name, max(t.file) AS file, count(*) AS runs,
                       count(*) FILTER (WHERE t.result IN ('failure', 'error')) AS failures,
                       array_agg(t.run_time) AS times
                FROM gantry.test_case t
                JOIN gantry.job j ON j.id = t.job_id
                WHERE j.project_id = :projectId
                  AND j.created_at >= :since
                  AND t.result <> 'skipped'
                  AND (CAST(:branch AS text) IS NULL OR EXISTS (
                      SELECT 1 FROM gantry.workflow w JOIN gantry.pipeline p ON p.id = w.pipeline_id
                      WHERE w.id = j.workflow_id AND p.branch = :branch))
                  AND (CAST(:workflowIds AS uuid[]) IS NULL OR j.workflow_id = ANY(:workflowIds))
                GROUP BY j.name, t.classname, t.name
            ) per_test
            ORDER BY p95_seconds DESC, runs DESC, job COLLATE "C", classname COLLATE "C", name COLLATE "C"
            LIMIT :limit
            """)
    List<TestRow> slowest(UUID projectId, OffsetDateTime since, String branch, UUID[] workflowIds, int limit);

    /**
     * Tests that both passed and failed (or errored) on the same commit, as CircleCI defines a flaky test: per test
     * (by job name, class name and name), its failures on such commits and on how many commits it flaked, of those
     * whose last flake was at {@code flakedSince} or later. A flake's time is the latest end of the test's jobs on
     * that commit. Job numbers grow with time, so the highest number of a failed job is where the test flaked last.
     */
    @SqlQuery("""
            -- Failures first: they are few, so only the jobs on a commit where a test failed are read again for its
            -- passes, instead of grouping every result of the window by test and commit (a month of a busy project
            -- is 60,000 results on as many commits as pipelines). The window's jobs are joined to their commits once.
            WITH jobs AS MATERIALIZED (
                SELECT j.id, j.name, j.number, p.revision, coalesce(j.stopped_at, j.created_at) AS at
                FROM gantry.job j
                JOIN gantry.workflow w ON w.id = j.workflow_id
                JOIN gantry.pipeline p ON p.id = w.pipeline_id
                WHERE j.project_id = :projectId
                  AND j.created_at >= :since
                  AND p.revision IS NOT NULL
                  AND (CAST(:branch AS text) IS NULL OR p.branch = :branch)
                  AND (CAST(:workflowIds AS uuid[]) IS NULL OR j.workflow_id = ANY(:workflowIds))
            ), failed AS MATERIALIZED (
                SELECT j.name AS job, t.classname, t.name, j.revision, max(t.file) AS file, count(*) AS failed,
                       sum(t.run_time) AS failed_seconds, max(j.number) AS failed_job_number, max(j.at) AS last_at
                FROM gantry.test_case t
                JOIN jobs j ON j.id = t.job_id
                WHERE t.result IN ('failure', 'error')
                GROUP BY j.name, t.classname, t.name, j.revision
            ), failed_on AS MATERIALIZED (
                SELECT j.* FROM jobs j WHERE (j.name, j.revision) IN (SELECT job, revision FROM failed)
            ), passed AS (
                SELECT j.name AS job, t.classname, t.name, j.revision, max(t.file) AS file, max(j.at) AS last_at
                FROM failed_on j
                JOIN gantry.test_case t ON t.job_id = j.id
                WHERE t.result IN ('success', 'skipped')
                  AND (j.name, t.classname, t.name, j.revision) IN (SELECT job, classname, name, revision FROM failed)
                GROUP BY j.name, t.classname, t.name, j.revision
                HAVING count(*) FILTER (WHERE t.result = 'success') > 0
            ), flaky AS (
                SELECT f.job, f.classname, f.name, max(greatest(f.file, p.file)) AS file,
                       sum(f.failed)::bigint AS times_flaked, count(*) AS commits,
                       max(greatest(f.last_at, p.last_at)) AS last_flaked_at, sum(f.failed_seconds) AS failed_seconds,
                       max(f.failed_job_number) AS job_number
                FROM failed f
                JOIN passed p USING (job, classname, name, revision)
                GROUP BY f.job, f.classname, f.name
                HAVING max(greatest(f.last_at, p.last_at)) >= :flakedSince
            )
            SELECT f.job, f.classname, f.name, f.file, f.times_flaked, f.commits, f.last_flaked_at, f.failed_seconds,
                   f.job_number, w.id AS workflow_id, w.name AS workflow_name, w.created_at AS workflow_created_at,
                   p.number AS pipeline_number
            FROM flaky f
            JOIN gantry.job j ON j.project_id = :projectId AND j.number = f.job_number
            JOIN gantry.workflow w ON w.id = j.workflow_id
            JOIN gantry.pipeline p ON p.id = w.pipeline_id
            ORDER BY f.times_flaked DESC, f.commits DESC, f.last_flaked_at DESC, f.job, f.classname, f.name
            LIMIT :limit
            """)
    List<FlakyRow> flaky(UUID projectId, OffsetDateTime since, String branch, UUID[] workflowIds,
                         OffsetDateTime flakedSince, int limit);

    @SqlQuery("""
            SELECT j.workflow_id, count(*) FILTER (WHERE t.result = 'success') AS success,
                   count(*) FILTER (WHERE t.result = 'failure') AS failure,
                   count(*) FILTER (WHERE t.result = 'error') AS error,
                   count(*) FILTER (WHERE t.result = 'skipped') AS skipped
            FROM gantry.test_case t
            JOIN gantry.job j ON j.id = t.job_id
            WHERE j.workflow_id = ANY(:workflowIds)
            GROUP BY j.workflow_id
            """)
    List<TestCountRow> testCounts(UUID[] workflowIds);

    /** The branches with runs in the window (of {@code workflow} when it is given), in name order. */
    @SqlQuery("""
            SELECT DISTINCT r.branch COLLATE "C" AS branch
            FROM gantry.workflow_run r
            WHERE r.project_id = :projectId AND r.created_at >= :since AND r.branch IS NOT NULL
              AND (CAST(:workflow AS text) IS NULL OR r.name = :workflow)
            ORDER BY 1
            LIMIT :limit
            """)
    List<String> branches(UUID projectId, OffsetDateTime since, String workflow, int limit);

    /** The repository's default branch as the plan builder last read it; null before any pipeline was planned. */
    @SqlQuery("SELECT default_branch FROM gantry.project WHERE id = :projectId")
    String defaultBranch(UUID projectId);
}
