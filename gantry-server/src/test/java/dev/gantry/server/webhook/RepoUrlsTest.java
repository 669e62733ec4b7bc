package dev.gantry.server.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class RepoUrlsTest {
    @Test
    void every_way_to_write_a_github_repository_is_the_same_key() {
        for (String url : new String[] {"https://github.com/Acme/App.git", "https://github.com/acme/app",
                "http://github.com/acme/app/", "git@github.com:acme/app.git", "ssh://git@github.com/acme/app.git",
                "ssh://git@github.com:22/acme/app", "git://github.com/acme/app.git", "https://user@github.com/acme/app"}) {
            assertThat(RepoUrls.key(url)).as(url).contains("github.com/acme/app");
        }
    }

    @Test
    void a_forge_on_other_ports_for_http_and_ssh_is_one_repository() {
        assertThat(RepoUrls.key("http://localhost:3000/gitea/webhooks.git"))
                .isEqualTo(RepoUrls.key("ssh://gitea@localhost:2222/gitea/webhooks.git"));
    }

    @Test
    void nested_gitlab_groups_keep_their_path() {
        assertThat(RepoUrls.key("https://gitlab.com/group/sub/app.git")).contains("gitlab.com/group/sub/app");
        assertThat(RepoUrls.key("https://gitlab.com/group/app")).isNotEqualTo(
                RepoUrls.key("https://gitlab.com/group/sub/app"));
    }

    @Test
    void other_hosts_owners_or_names_are_other_repositories() {
        assertThat(RepoUrls.key("https://github.com/acme/app")).isNotEqualTo(RepoUrls.key("https://gitlab.com/acme/app"));
        assertThat(RepoUrls.key("https://github.com/acme/app")).isNotEqualTo(RepoUrls.key("https://github.com/acme/app2"));
        assertThat(RepoUrls.key("https://github.com/acme/app")).isNotEqualTo(RepoUrls.key("https://github.com/other/app"));
    }

    @Test
    void a_local_directory_is_the_same_as_a_path_or_a_file_url_and_keeps_its_case() {
        assertThat(RepoUrls.key("/srv/git/App/")).contains("file:/srv/git/App");
        assertThat(RepoUrls.key("file:///srv/git/App.git")).contains("file:/srv/git/App");
        assertThat(RepoUrls.key("/srv/git/App")).isNotEqualTo(RepoUrls.key("/srv/git/app"));
    }

    @Test
    void nothing_usable_is_no_key() {
        assertThat(RepoUrls.key(null)).isEmpty();
        assertThat(RepoUrls.key("")).isEqualTo(Optional.empty());
        assertThat(RepoUrls.key("https://github.com/")).isEmpty();
        assertThat(RepoUrls.key("not a url")).isEmpty();
    }

    @Test
    void the_name_is_the_last_segment() {
        assertThat(RepoUrls.name(RepoUrls.key("https://github.com/acme/app.git").orElseThrow())).isEqualTo("app");
    }
}
