package dev.gantry.server.project;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gantry.server.http.ApiException;
import dev.gantry.server.http.Json;
import dev.gantry.server.http.JsonFields;
import java.nio.file.Path;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** How a project request becomes a slug: names, organizations, and what a repo_url may be. */
class NewProjectTest {
    @ParameterizedTest
    @CsvSource({
        "https://github.com/acme/app.git,       acme",
        "https://github.com/acme/app,           acme",
        "http://git.example.com:8080/acme/app/, acme",
        "https://gitlab.com/acme/group/app.git, acme",
        "ssh://git@github.com/acme/app.git,     acme",
        "git://example.com/acme/app,            acme",
        "git@github.com:acme/app.git,           acme",
        "github.com:acme/app.git,               acme",
        "/srv/repos/app,                        local",
        "file:///srv/repos/app,                 local",
    })
    void the_organization_comes_from_the_repository_owner_or_is_local(String repoUrl, String organization) {
        NewProject project = request("{\"name\": \"app\", \"repo_url\": \"" + repoUrl + "\"}");

        assertThat(project.slug()).isEqualTo(new ProjectSlug(organization, "app"));
        assertThat(project.slug().toString()).isEqualTo("gantry/" + organization + "/app");
        assertThat(project.repoUrl()).isEqualTo(repoUrl);
    }

    @Test
    void an_organization_in_the_request_wins() {
        assertThat(request("{\"name\": \"app\", \"repo_url\": \"git@github.com:acme/app.git\", "
                + "\"organization\": \"widgets\"}").slug()).isEqualTo(new ProjectSlug("widgets", "app"));
        assertThat(request("{\"name\": \"app\", \"repo_url\": \"/srv/app\", \"organization\": \"widgets\"}").slug())
                .isEqualTo(new ProjectSlug("widgets", "app"));
    }

    @Test
    void a_local_path_is_normalised_for_the_directory_check_but_kept_as_given() {
        NewProject project = request("{\"name\": \"app\", \"repo_url\": \"/srv/repos/../app/\"}");

        assertThat(project.repo()).isEqualTo(new RepoLocation.Local(Path.of("/srv/app")));
        assertThat(project.repoUrl()).isEqualTo("/srv/repos/../app/");
    }

    @Test
    void a_url_without_an_owner_needs_an_organization() {
        ApiException refused = refused("{\"name\": \"app\", \"repo_url\": \"https://example.com/app.git\"}");

        assertThat(refused.field()).contains("organization");
        assertThat(request("{\"name\": \"app\", \"repo_url\": \"https://example.com/app.git\", "
                + "\"organization\": \"acme\"}").slug().organization()).isEqualTo("acme");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "relative/path", "app", "ftp://example.com/acme/app.git", "https://github.com/",
        "https://github.com", "file://relative", "/srv/with space", "https://exa mple.com/a/b", "C:"})
    void a_repo_url_that_is_neither_a_git_url_nor_an_absolute_path_is_refused(String repoUrl) {
        ApiException refused = refused("{\"name\": \"app\", \"repo_url\": \"" + repoUrl + "\"}");

        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.field()).contains("repo_url");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", ".", "..", "a/b", "has space", "ünïcode", "semi;colon"})
    void names_and_organizations_follow_the_slug_rule(String part) {
        assertThat(refused("{\"name\": \"" + part + "\", \"repo_url\": \"/srv/app\"}").field()).contains("name");
        assertThat(refused("{\"name\": \"app\", \"repo_url\": \"/srv/app\", \"organization\": \"" + part + "\"}")
                .field()).contains("organization");
    }

    @Test
    void a_part_may_be_100_characters_of_letters_digits_dots_underscores_and_dashes() {
        String longest = "a".repeat(97) + "._-";

        assertThat(request("{\"name\": \"" + longest + "\", \"repo_url\": \"/srv\"}").slug().name()).isEqualTo(longest);
        assertThat(refused("{\"name\": \"" + longest + "x\", \"repo_url\": \"/srv\"}").field()).contains("name");
    }

    @Test
    void missing_fields_wrong_types_and_unknown_fields_are_named() {
        assertThat(refused("{\"repo_url\": \"/srv\"}").field()).contains("name");
        assertThat(refused("{\"name\": \"app\"}").field()).contains("repo_url");
        assertThat(refused("{\"name\": 7, \"repo_url\": \"/srv\"}").field()).contains("name");
        assertThat(refused("{\"name\": \"app\", \"repo_url\": \"/srv\", \"repo\": \"x\"}").field()).contains("repo");
    }

    @Test
    void path_segments_name_a_project_under_the_gantry_prefix_or_circleci_s() {
        assertThat(ProjectSlug.fromPath("gantry", "acme", "app")).contains(new ProjectSlug("acme", "app"));
        for (String vcs : new String[] {"gh", "github", "gl", "gitlab", "bb", "bitbucket"}) {
            assertThat(ProjectSlug.fromPath(vcs, "acme", "app")).contains(new ProjectSlug("acme", "app"));
        }
        assertThat(ProjectSlug.fromPath("svn", "acme", "app")).isEmpty();
        assertThat(ProjectSlug.fromPath("gantry", "..", "app")).isEmpty();
        assertThat(ProjectSlug.fromPath("gantry", "acme", "a b")).isEmpty();
    }

    private static NewProject request(String json) {
        return NewProject.from(JsonFields.of(object(json), NewProject.FIELDS));
    }

    private static ApiException refused(String json) {
        ApiException refused = catchThrowableOfType(ApiException.class, () -> request(json));
        assertThat(refused).as("refusal of %s", json).isNotNull();
        return refused;
    }

    private static ObjectNode object(String json) {
        try {
            return (ObjectNode) Json.MAPPER.readTree(json);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
