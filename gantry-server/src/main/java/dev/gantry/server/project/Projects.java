package dev.gantry.server.project;

import dev.gantry.server.auth.Principal;
import dev.gantry.server.http.ApiException;
import dev.gantry.server.http.PageToken;
import dev.gantry.server.http.RequestLocks;
import java.nio.file.Files;
import java.time.Instant;
import java.time.InstantSource;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;

/** Creates, finds and lists projects. Thread-safe. */
public final class Projects {
    private final Jdbi jdbi;
    private final InstantSource clock;
    private final RepositoryPolicy repositories;
    private final RepositoryUrls repositoryUrls;

    /**
     * @param repositories   which repositories a project may name
     * @param repositoryUrls where the credentials of a repository URL are sealed
     */
    public Projects(Jdbi jdbi, InstantSource clock, RepositoryPolicy repositories, RepositoryUrls repositoryUrls) {
        this.jdbi = jdbi;
        this.clock = clock;
        this.repositories = repositories;
        this.repositoryUrls = repositoryUrls;
    }

    /** One page of projects in slug order, and where the next one starts, if there is one. */
    public record Page(List<Project> items, Optional<PageToken> next) {
    }

    /**
     * Creates the project {@code request} describes.
     *
     * @throws ApiException 400 if its repository is one the policy refuses or a local path that is not a directory,
     *                      409 if its slug is taken
     */
    Project create(NewProject request) {
        repositories.refusal(request.repo()).ifPresent(reason -> {
            throw ApiException.invalid(RepoLocation.FIELD, "\"" + RepoLocation.FIELD + "\" " + reason);
        });
        if (request.repo() instanceof RepoLocation.Local local && !Files.isDirectory(local.path())) {
            throw ApiException.invalid(RepoLocation.FIELD, "\"" + RepoLocation.FIELD + "\" "
                    + ApiException.quote(request.repoUrl()) + " is not a directory on the server");
        }
        // PostgreSQL keeps microseconds: what the response shows is then exactly what a later read shows.
        Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
        // Credentials in the URL are sealed apart from it: the stored URL never holds them.
        RepositoryUrls.Split split = RepositoryUrls.split(request.repoUrl());
        Project project = new Project(UUID.randomUUID(), request.slug(), split.url(), now);
        jdbi.useTransaction(h -> {
            if (!h.attach(ProjectDao.class).insert(project.id(), project.slug().organization(),
                    project.slug().name(), project.vcsUrl(), now.atOffset(ZoneOffset.UTC))) {
                throw ApiException.conflict("project " + project.slug() + " already exists");
            }
            if (split.credentials() != null) {
                RepositoryUrls.Sealed sealed = repositoryUrls.seal(h, project.id(), split.credentials());
                h.createUpdate("UPDATE gantry.project SET vcs_credentials = :sealed, vcs_credentials_key = :key "
                        + "WHERE id = :id").bind("sealed", sealed.bytes()).bind("key", sealed.dataKeyId())
                        .bind("id", project.id()).execute();
            }
        });
        return project;
    }

    /** The project with this id, if there is one. */
    public Optional<Project> find(UUID id) {
        return jdbi.withExtension(ProjectDao.class, projects -> projects.findById(id));
    }

    public Optional<Project> find(ProjectSlug slug) {
        return jdbi.withExtension(ProjectDao.class, projects -> projects.find(slug.organization(), slug.name()));
    }

    /**
     * The page of {@link PageToken#PAGE_SIZE} projects that starts after {@code after}, or the first page.
     *
     * @throws ApiException 400 if {@code after} is not a token this list handed out
     */
    public Page list(Optional<String> after, Principal caller) {
        Optional<ProjectSlug> from = after.map(Projects::position);
        int limit = PageToken.PAGE_SIZE + 1; // one more tells whether a next page exists
        String[] organizations = caller.roles().keySet().toArray(String[]::new);
        List<Project> rows = jdbi.withExtension(ProjectDao.class, projects -> from.isEmpty()
                ? projects.firstPage(caller.siteAdmin(), organizations, limit)
                : projects.pageAfter(from.get().organization(), from.get().name(), caller.siteAdmin(),
                        organizations, limit));
        if (rows.size() <= PageToken.PAGE_SIZE) {
            return new Page(rows, Optional.empty());
        }
        List<Project> page = rows.subList(0, PageToken.PAGE_SIZE);
        ProjectSlug last = page.getLast().slug();
        return new Page(List.copyOf(page), Optional.of(PageToken.after(last.organization(), last.name())));
    }

    /**
     * The project's settings; {@code autoCancel} and {@code webhookSecret} (empty: leave it; a present null: remove
     * it), when given, are set first.
     *
     * @throws ApiException 404 if there is no such project
     */
    ProjectSettings settings(ProjectSlug slug, Optional<Boolean> autoCancel,
                             Optional<Optional<String>> webhookSecret) {
        return jdbi.inTransaction(h -> {
            RequestLocks.bound(h); // the project's row, which a trigger holds while it takes a number
            ProjectDao projects = h.attach(ProjectDao.class);
            if (autoCancel.isPresent()
                    && !projects.setAutoCancelRedundant(slug.organization(), slug.name(), autoCancel.get())) {
                throw ProjectRoutes.unknown(slug.toString());
            }
            if (webhookSecret.isPresent() && !projects.setWebhookSecret(slug.organization(), slug.name(),
                    webhookSecret.get().orElse(null))) {
                throw ProjectRoutes.unknown(slug.toString());
            }
            boolean autoCancelSet = projects.autoCancelRedundant(slug.organization(), slug.name())
                    .orElseThrow(() -> ProjectRoutes.unknown(slug.toString()));
            return new ProjectSettings(autoCancelSet,
                    projects.hasWebhookSecret(slug.organization(), slug.name()).orElse(false));
        });
    }

    private static ProjectSlug position(String token) {
        List<String> position = PageToken.decode(token, 2).position();
        if (!ProjectSlug.validPart(position.get(0)) || !ProjectSlug.validPart(position.get(1))) {
            throw ApiException.invalid(PageToken.PARAMETER, "\"" + PageToken.PARAMETER + "\" does not point into "
                    + "the list of projects; use the next_page_token of the previous page");
        }
        return new ProjectSlug(position.get(0), position.get(1));
    }
}
