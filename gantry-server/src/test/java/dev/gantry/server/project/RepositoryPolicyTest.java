package dev.gantry.server.project;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RepositoryPolicyTest {
    /** A resolver with fixed answers, as DNS might give them; names it does not know do not resolve. */
    static final Function<String, InetAddress[]> DNS = host -> {
        Map<String, String> answers = Map.of("github.com", "140.82.121.4", "git.corp.example", "10.1.2.3",
                "rebound.example", "169.254.169.254", "v6.example", "fd00::5");
        String address = answers.getOrDefault(host, host.matches("[0-9.:a-fA-F]+") ? host : null);
        try {
            return address == null ? new InetAddress[0] : new InetAddress[] {InetAddress.getByName(address)};
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    };

    private static Optional<String> refusal(RepositoryPolicy policy, String url) {
        return policy.refusal(RepoLocation.parse(url), DNS);
    }

    @ParameterizedTest
    @ValueSource(strings = {"https://github.com/acme/app.git", "git@github.com:acme/app.git",
        "ssh://git@github.com/acme/app.git", "git://github.com/acme/app.git", "https://unresolvable.example/a/b"})
    void public_hosts_over_https_ssh_and_git_are_fetched_by_default(String url) {
        assertThat(refusal(RepositoryPolicy.PUBLIC_ONLY, url)).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"https://127.0.0.1/a/b", "https://localhost/a/b", "https://x.localhost:8080/a/b",
        "https://169.254.169.254/latest/meta-data", "https://[::1]/a/b", "git@10.0.0.7:acme/app.git",
        "ssh://git@192.168.1.20/acme/app.git", "https://172.16.0.1/a/b", "https://100.64.0.1/a/b",
        "https://0.0.0.0/a/b", "https://git.corp.example/acme/app.git", "https://rebound.example/a/b",
        "https://v6.example/a/b", "https://[fe80::1]/a/b"})
    void hosts_on_loopback_link_local_and_private_networks_are_refused_without_saying_where_they_point(String url) {
        Optional<String> refused = refusal(RepositoryPolicy.PUBLIC_ONLY, url);

        assertThat(refused).hasValueSatisfying(reason -> assertThat(reason)
                .contains("loopback, link-local or private network", "--allow-private-networks")
                .doesNotContain("10.1.2.3", "169.254"));
        assertThat(refusal(new RepositoryPolicy(false, true), url)).isEmpty();
    }

    @Test
    void plain_http_and_directories_need_their_admin_settings() {
        assertThat(refusal(RepositoryPolicy.PUBLIC_ONLY, "http://github.com/acme/app.git")).hasValueSatisfying(
                reason -> assertThat(reason).contains("plain http://"));
        assertThat(refusal(RepositoryPolicy.PUBLIC_ONLY, "/etc")).hasValueSatisfying(
                reason -> assertThat(reason).contains("directory on the server", "--allow-local-repositories"));
        assertThat(refusal(RepositoryPolicy.PUBLIC_ONLY, "file:///root")).isPresent();
        assertThat(refusal(new RepositoryPolicy(true, false), "file:///srv/git/app")).isEmpty();
        assertThat(refusal(RepositoryPolicy.ANYTHING, "http://127.0.0.1:3000/a/b.git")).isEmpty();
    }

    @Test
    void credentials_leave_a_url_before_it_is_shown() {
        assertThat(RepositoryPolicy.withoutCredentials("https://bot:s3cret@github.com/acme/app.git"))
                .isEqualTo("https://github.com/acme/app.git");
        assertThat(RepositoryPolicy.withoutCredentials("https://token@gitlab.com/acme/app.git"))
                .isEqualTo("https://gitlab.com/acme/app.git");
        assertThat(RepositoryPolicy.withoutCredentials("git@github.com:acme/app.git"))
                .isEqualTo("git@github.com:acme/app.git");
        assertThat(RepositoryPolicy.withoutCredentials("/srv/git/app")).isEqualTo("/srv/git/app");
    }
}
