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
@RegisterRowMapper(ProjectDao.WebhookTargetMapper.class)
public interface ProjectDao {
    /** A project a webhook may trigger, with the secret its deliveries must prove (null: none set). */
    record WebhookTarget(Project project, String webhookSecret) {
    }

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

    @SqlQuery("SELECT id, organization, name, vcs_url, created_at FROM gantry.project WHERE id = :id")
    Optional<Project> findById(UUID id);

    @SqlQuery("""
            SELECT id, organization, name, vcs_url, created_at
            FROM gantry.project
            WHERE :everyOrganization OR organization = ANY(:organizations)
            ORDER BY organization, name
            LIMIT :limit
            """)
    List<Project> firstPage(boolean everyOrganization, String[] organizations, int limit);

    /** The page after the project {@code organization/name}, in the order of {@link #firstPage}. */
    @SqlQuery("""
            SELECT id, organization, name, vcs_url, created_at
            FROM gantry.project
            WHERE (organization, name) > (:organization, :name)
              AND (:everyOrganization OR organization = ANY(:organizations))
            ORDER BY organization, name
            LIMIT :limit
            """)
    List<Project> pageAfter(String organization, String name, boolean everyOrganization, String[] organizations,
                            int limit);

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

    /**
     * The projects whose repository URL holds {@code repositoryName} (case-insensitively), with their webhook
     * secrets: the candidates for a webhook about a repository of that name, for the caller to match exactly.
     */
    @SqlQuery("""
            SELECT id, organization, name, vcs_url, created_at, webhook_secret
            FROM gantry.project
            WHERE strpos(lower(vcs_url), lower(:repositoryName)) > 0
            ORDER BY organization, name
            """)
    List<WebhookTarget> withRepositoryNamed(String repositoryName);

    /** Whether the project has a webhook secret; empty when there is no such project. */
    @SqlQuery("""
            SELECT webhook_secret IS NOT NULL FROM gantry.project WHERE organization = :organization AND name = :name
            """)
    Optional<Boolean> hasWebhookSecret(String organization, String name);

    /** Sets (null: removes) the project's webhook secret; false when there is no such project. */
    @SqlUpdate("""
            UPDATE gantry.project SET webhook_secret = :secret
            WHERE organization = :organization AND name = :name
            """)
    boolean setWebhookSecret(String organization, String name, String secret);

    /** Reads the columns {@link #withRepositoryNamed} selects. */
    final class WebhookTargetMapper implements RowMapper<WebhookTarget> {
        private final ProjectMapper projects = new ProjectMapper();

        @Override
        public WebhookTarget map(ResultSet rs, StatementContext ctx) throws SQLException {
            return new WebhookTarget(projects.map(rs, ctx), rs.getString("webhook_secret"));
        }
    }

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
