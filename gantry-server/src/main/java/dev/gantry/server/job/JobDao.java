package dev.gantry.server.job;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import dev.gantry.server.http.Json;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.mapper.RowMapper;
import org.jdbi.v3.core.statement.StatementContext;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.config.RegisterRowMapper;
import org.jdbi.v3.sqlobject.statement.SqlQuery;

/** The read side of {@code gantry.job} for a job's details: the job, its steps and its parallel nodes. */
@RegisterRowMapper(JobDao.JobMapper.class)
@RegisterRowMapper(JobDao.StepRunMapper.class)
@RegisterRowMapper(JobDao.TaskMapper.class)
interface JobDao {
    @SqlQuery("""
            SELECT j.id, j.number, j.name, j.type, j.status, j.resource_class, j.executor::text AS executor,
                   j.parallelism, (j.spec -> 'contexts')::text AS contexts, j.created_at, j.queued_at, j.started_at,
                   j.stopped_at, w.id AS workflow_id, w.name AS workflow_name, w.pipeline_id, pr.organization,
                   pr.name AS project_name, pr.vcs_url, pr.id AS project_id
            FROM gantry.project pr
            JOIN gantry.job j ON j.project_id = pr.id
            JOIN gantry.workflow w ON w.id = j.workflow_id
            WHERE pr.organization = :organization AND pr.name = :name AND j.number = :number
            """)
    Optional<Job> find(String organization, String name, long number);

    @SqlQuery("""
            SELECT step_index, node_index, name, status, exit_code, started_at, stopped_at
            FROM gantry.job_step
            WHERE (job_id, node_index) IN (SELECT * FROM gantry.result_nodes(:jobId))
            ORDER BY step_index, node_index
            """)
    List<Job.StepRun> steps(UUID jobId);

    @SqlQuery("""
            SELECT node_index, status
            FROM gantry.job_task
            WHERE job_id = :jobId
            ORDER BY node_index
            """)
    List<Job.Task> tasks(UUID jobId);

    /** A job that a blocked job requires, by name, and the status of its latest attempt. */
    record Upstream(String name, String status) {
    }

    /** The jobs {@code jobId} requires, by name, with the status of each one's latest attempt. */
    @SqlQuery("""
            SELECT u.name, u.status
            FROM gantry.job me
            CROSS JOIN LATERAL jsonb_object_keys(me.requires) AS r(name)
            JOIN LATERAL (SELECT up.name, up.status
                          FROM gantry.job up
                          WHERE up.workflow_id = me.workflow_id AND up.name = r.name
                          ORDER BY up.attempt DESC
                          LIMIT 1) u ON true
            WHERE me.id = :jobId
            ORDER BY u.name
            """)
    @RegisterConstructorMapper(Upstream.class)
    List<Upstream> upstream(UUID jobId);

    /** Reads the columns {@link #find} selects. */
    final class JobMapper implements RowMapper<Job> {
        private static final TypeReference<LinkedHashMap<String, Object>> OBJECT = new TypeReference<>() {
        };
        private static final TypeReference<List<String>> STRINGS = new TypeReference<>() {
        };

        @Override
        public Job map(ResultSet rs, StatementContext ctx) throws SQLException {
            String executor = rs.getString("executor");
            String contexts = rs.getString("contexts");
            try {
                return new Job(rs.getObject("id", UUID.class), rs.getLong("number"), rs.getString("name"),
                        rs.getString("type"), rs.getString("status"), rs.getString("resource_class"),
                        executor == null ? null : Json.MAPPER.readValue(executor, OBJECT), rs.getInt("parallelism"),
                        contexts == null ? List.of() : Json.MAPPER.readValue(contexts, STRINGS),
                        instant(rs, "created_at"), instant(rs, "queued_at"), instant(rs, "started_at"),
                        instant(rs, "stopped_at"), rs.getObject("workflow_id", UUID.class),
                        rs.getString("workflow_name"), rs.getObject("pipeline_id", UUID.class),
                        rs.getString("organization"), rs.getString("project_name"), rs.getString("vcs_url"),
                        rs.getObject("project_id", UUID.class));
            } catch (JsonProcessingException e) {
                throw new IllegalStateException("gantry.job " + rs.getObject("id") + " holds JSON of another shape", e);
            }
        }
    }

    /** Reads the columns {@link #steps} selects. */
    final class StepRunMapper implements RowMapper<Job.StepRun> {
        @Override
        public Job.StepRun map(ResultSet rs, StatementContext ctx) throws SQLException {
            return new Job.StepRun(rs.getInt("step_index"), rs.getInt("node_index"), rs.getString("name"),
                    rs.getString("status"), rs.getObject("exit_code", Integer.class), instant(rs, "started_at"),
                    instant(rs, "stopped_at"));
        }
    }

    /** Reads the columns {@link #tasks} selects. */
    final class TaskMapper implements RowMapper<Job.Task> {
        @Override
        public Job.Task map(ResultSet rs, StatementContext ctx) throws SQLException {
            return new Job.Task(rs.getInt("node_index"), rs.getString("status"));
        }
    }

    private static Instant instant(ResultSet rs, String column) throws SQLException {
        OffsetDateTime time = rs.getObject(column, OffsetDateTime.class);
        return time == null ? null : time.toInstant();
    }
}
