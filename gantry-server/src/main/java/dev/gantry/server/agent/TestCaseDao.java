package dev.gantry.server.agent;

import java.util.List;
import java.util.UUID;
import org.jdbi.v3.sqlobject.customizer.Bind;
import org.jdbi.v3.sqlobject.customizer.BindMethods;
import org.jdbi.v3.sqlobject.statement.SqlBatch;
import org.jdbi.v3.sqlobject.statement.SqlQuery;

/** The agent side's statements on {@code gantry.test_case}. */
interface TestCaseDao {
    /** One test's result as the agent reports it. */
    record TestCase(String classname, String name, String file, String result, double runTime, String message) {
    }

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
