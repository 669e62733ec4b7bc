package dev.gantry.cli;

import dev.gantry.cli.client.GantryClient;
import dev.gantry.cli.client.GantryClientException;
import java.nio.file.Path;
import java.util.Map;

/** Registers a local repository as a project, or finds it registered. */
final class Projects {
    private Projects() {
    }

    /**
     * The slug of project {@code organization/name}, registering {@code repository} under it if there is none.
     *
     * @throws GantryClientException if the name is taken by another repository, or the server refuses
     */
    static String ensure(GantryClient client, String organization, String name, Path repository) {
        String slug = "gantry/" + organization + "/" + name;
        GantryClient.Answer existing = client.get("/api/v2/project/" + slug);
        String url = repository.toAbsolutePath().normalize().toString();
        if (existing.ok()) {
            String registered = existing.json().path("vcs_url").asText();
            if (!registered.equals(url)) {
                throw new GantryClientException("project " + slug + " is already registered for " + registered
                        + ", not " + url);
            }
            return slug;
        }
        if (existing.status() != 404) {
            throw new GantryClientException("looking up " + slug + ": " + existing.message());
        }
        GantryClient.Answer created = client.post("/api/v2/project",
                Map.of("name", name, "organization", organization, "repo_url", url));
        if (!created.ok() && created.status() != 409) {
            throw new GantryClientException("registering " + url + " as " + slug + ": " + created.message());
        }
        return slug;
    }
}
