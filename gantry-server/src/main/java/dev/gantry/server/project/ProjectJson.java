package dev.gantry.server.project;

import dev.gantry.server.http.Json;
import java.util.UUID;

/** A project as the API shows it, with CircleCI's field names. */
record ProjectJson(UUID id, String slug, String name, String organizationName, UUID organizationId, String vcsUrl,
                   String createdAt) {
    static ProjectJson of(Project project) {
        return new ProjectJson(project.id(), project.slug().toString(), project.slug().name(),
                project.slug().organization(), project.slug().organizationId(),
                RepositoryPolicy.withoutCredentials(project.vcsUrl()),
                Json.time(project.createdAt()));
    }
}
