package dev.gantry.server.project;

import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * A project as stored.
 *
 * @param vcsUrl where its repository is: the {@code repo_url} it was created with
 */
public record Project(UUID id, ProjectSlug slug, String vcsUrl, Instant createdAt) {
    public Project {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(slug, "slug");
        Objects.requireNonNull(vcsUrl, "vcsUrl");
        Objects.requireNonNull(createdAt, "createdAt");
    }
}
