package dev.gantry.server.project;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.mapper.RowMapper;
import org.jdbi.v3.core.statement.StatementContext;
import org.jdbi.v3.sqlobject.config.RegisterRowMapper;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

/**
 * Every statement on {@code gantry.project}. Attach it to a handle ({@code handle.attach(ProjectDao.class)}) to use
 * it inside a caller's transaction, as a pipeline trigger does for {@link #claimPipelineNumber}.
 */
@RegisterRowMapper(ProjectDao.ProjectMapper.class)
public interface ProjectDao {
    /** @return false, inserting nothing, when a project with this slug exists */
    @SqlUpdate("""
            INSERT INTO gantry.project (id, organization, name, vcs_url, created_at)
            VALUES (:id, :organization, :name, :vcsUrl, :createdAt)
            ON CONFLICT ON CONSTRAINT project_slug DO NOTHING
            """)
    boolean insert(UUID id, String organization, String name, String vcsUrl, OffsetDateTime createdAt);

    @SqlQuery("""
            SELECT id, organization, name, vcs_url, created_at
            FROM gantry.project
            WHERE organization = :organization AND name = :name
            """)
    Optional<Project> find(String organization, String name);

    @SqlQuery("""
            SELECT id, organization, name, vcs_url, created_at
            FROM gantry.project
            ORDER BY organization, name
            LIMIT :limit
            """)
    List<Project> firstPage(int limit);

    /** The page after the project {@code organization/name}, in the order of {@link #firstPage}. */
    @SqlQuery("""
            SELECT id, organization, name, vcs_url, created_at
            FROM gantry.project
            WHERE (organization, name) > (:organization, :name)
            ORDER BY organization, name
            LIMIT :limit
            """)
    List<Project> pageAfter(String organization, String name, int limit);

    /**
     * Takes the project's next pipeline number. The row stays locked until the caller's transaction ends, so
     * concurrent triggers of one project take their turns here, and a trigger that rolls back gives its number back:
     * numbers have no gaps. Empty when there is no such project.
     */
    @SqlQuery("""
            UPDATE gantry.project SET last_pipeline_number = last_pipeline_number + 1
            WHERE id = :id
            RETURNING last_pipeline_number
            """)
    Optional<Long> claimPipelineNumber(UUID id);

    /** Whether the project auto-cancels redundant workflows; empty when there is no such project. */
    @SqlQuery("SELECT auto_cancel_redundant FROM gantry.project WHERE organization = :organization AND name = :name")
    Optional<Boolean> autoCancelRedundant(String organization, String name);

    /** @return false when there is no such project */
    @SqlUpdate("""
            UPDATE gantry.project SET auto_cancel_redundant = :enabled
            WHERE organization = :organization AND name = :name
            """)
    boolean setAutoCancelRedundant(String organization, String name, boolean enabled);

    /** Reads the columns the queries above select. */
    final class ProjectMapper implements RowMapper<Project> {
        @Override
        public Project map(ResultSet rs, StatementContext ctx) throws SQLException {
            return new Project(rs.getObject("id", UUID.class),
                    new ProjectSlug(rs.getString("organization"), rs.getString("name")), rs.getString("vcs_url"),
                    rs.getObject("created_at", OffsetDateTime.class).toInstant());
        }
    }
}
