package dev.gantry.server.agent;

import java.util.List;
import java.util.UUID;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.customizer.Bind;
import org.jdbi.v3.sqlobject.customizer.BindMethods;
import org.jdbi.v3.sqlobject.statement.SqlBatch;
import org.jdbi.v3.sqlobject.statement.SqlQuery;

/** The agent side's statements on {@code gantry.test_case}. */
interface TestCaseDao {
    /** One test's result as the agent reports it. */
    record TestCase(String classname, String name, String file, String result, double runTime, String message) {
    }

    /** A test's duration in the latest successful run of a job, for {@code circleci tests split --split-by=timings}. */
    record Timing(String file, String classname, String name, double runTime) {
    }

    /**
     * The tests of the latest successful job of the same project and name as {@code jobId} that stored any, at most
     * {@code limit} (CircleCI splits by the timings of the last successful run). The {@code job_history} index finds
     * that job.
     */
    @SqlQuery("""
            SELECT t.file, t.classname, t.name, t.run_time
            FROM gantry.test_case t
            WHERE t.job_id = (
                SELECT earlier.id
                FROM gantry.job this
                JOIN gantry.job earlier ON earlier.project_id = this.project_id AND earlier.name = this.name
                WHERE this.id = :jobId AND earlier.status = 'success' AND earlier.id <> this.id
                  AND EXISTS (SELECT 1 FROM gantry.test_case c WHERE c.job_id = earlier.id)
                ORDER BY earlier.stopped_at DESC
                LIMIT 1)
            ORDER BY t.node_index, t.seq
            LIMIT :limit
            """)
    @RegisterConstructorMapper(Timing.class)
    List<Timing> latestTimings(UUID jobId, int limit);

    /** The next free sequence number of a node's tests; the caller holds the task's row lock. */
    @SqlQuery("SELECT coalesce(max(seq) + 1, 0) FROM gantry.test_case WHERE job_id = :jobId AND node_index = :nodeIndex")
    int nextSeq(UUID jobId, int nodeIndex);

    @SqlBatch("""
            INSERT INTO gantry.test_case (job_id, node_index, seq, classname, name, file, result, run_time, message)
            VALUES (:jobId, :nodeIndex, :seq, :t.classname, :t.name, :t.file, :t.result, :t.runTime, :t.message)
            """)
    void insert(@Bind("jobId") UUID jobId, @Bind("nodeIndex") int nodeIndex, @Bind("seq") List<Integer> seq,
                @BindMethods("t") List<TestCase> tests);
}
