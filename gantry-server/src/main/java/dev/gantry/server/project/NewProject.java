package dev.gantry.server.project;

import dev.gantry.server.http.ApiException;
import dev.gantry.server.http.JsonFields;
import java.util.Set;

/**
 * A checked request to create a project: {@code {"name", "repo_url", "organization"?}}. The organization is the
 * request's, else the one {@link RepoLocation#organization()} derives from the repository.
 *
 * @param repoUrl the {@code repo_url} as the client wrote it, kept as the project's {@code vcs_url}
 */
record NewProject(ProjectSlug slug, String repoUrl, RepoLocation repo) {
    static final Set<String> FIELDS = Set.of("name", "repo_url", "organization");

    /** Reads and checks the request; every problem is a 400 naming its field. */
    static NewProject from(JsonFields fields) {
        String name = part(fields.requiredString("name"), "name");
        String repoUrl = fields.requiredString(RepoLocation.FIELD);
        RepoLocation repo = RepoLocation.parse(repoUrl);
        String organization = fields.optionalString("organization").map(given -> part(given, "organization"))
                .or(repo::organization)
                .orElseThrow(() -> ApiException.invalid("organization", "cannot tell the organization from "
                        + "repo_url " + ApiException.quote(repoUrl) + "; give it as \"organization\""));
        return new NewProject(new ProjectSlug(organization, name), repoUrl, repo);
    }

    private static String part(String value, String field) {
        if (!ProjectSlug.validPart(value)) {
            throw ApiException.invalid(field, "\"" + field + "\" must be " + ProjectSlug.PART_RULE + ", got "
                    + ApiException.quote(value));
        }
        return value;
    }
}
