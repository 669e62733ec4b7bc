package dev.gantry.server.agent;

import java.time.OffsetDateTime;
import java.util.UUID;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

/** Every statement on {@code gantry.job_step}. */
interface StepDao {
    @SqlUpdate("""
            INSERT INTO gantry.job_step (job_id, node_index, step_index, name, status, exit_code, output_offset,
                                         started_at, stopped_at)
            VALUES (:jobId, :nodeIndex, :stepIndex, :name, :status, :exitCode, :outputOffset, :startedAt, :stoppedAt)
            ON CONFLICT (job_id, node_index, step_index) DO UPDATE
            SET name = excluded.name, status = excluded.status, exit_code = excluded.exit_code,
                output_offset = excluded.output_offset, started_at = excluded.started_at,
                stopped_at = excluded.stopped_at
            """)
    void upsert(UUID jobId, int nodeIndex, int stepIndex, String name, String status, Integer exitCode,
                long outputOffset, OffsetDateTime startedAt, OffsetDateTime stoppedAt);
}
