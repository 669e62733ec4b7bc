package dev.gantry.server.agent;

import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.statement.SqlQuery;

/**
 * First in, first out per resource class: the oldest queued task whose job fits the free CPU and memory. All tasks of
 * a class need the same size, so a class's oldest task is either taken or the whole class is skipped for a smaller
 * one that fits; no class overtakes itself. Thread-safe and stateless.
 */
public final class FifoMatcher implements TaskMatcher {
    /** The oldest fitting task, locked; rows other claims hold are skipped rather than waited for. */
    @RegisterConstructorMapper(TaskKey.class)
    interface Dao {
        // SKIP LOCKED: a concurrent claim holding the oldest row must not make this one wait, nor get it twice.
        @SqlQuery("""
                SELECT t.job_id
                     , t.node_index
                FROM gantry.job_task t
                JOIN gantry.job j ON j.id = t.job_id
                WHERE t.status = 'queued'
                  AND j.status IN ('queued', 'running')
                  AND NOT j.cancel_requested
                  AND j.cpu <= :cpu
                  AND j.memory_mb <= :memoryMb
                ORDER BY t.queued_at, t.job_id, t.node_index
                LIMIT 1
                FOR UPDATE OF t SKIP LOCKED
                """)
        Optional<TaskKey> oldestFitting(int cpu, int memoryMb);
    }

    @Override
    public Optional<TaskKey> pick(Handle h, FreeResources free) {
        return h.attach(Dao.class).oldestFitting(free.cpu(), free.memoryMb());
    }
}
