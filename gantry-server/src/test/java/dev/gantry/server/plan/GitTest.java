package dev.gantry.server.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gantry.server.pipeline.GitRef;
import dev.gantry.server.project.RepositoryPolicy;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class GitTest {
    @Test
    void credentials_in_urls_are_masked_in_messages() {
        assertThat(Git.maskCredentials("fatal: unable to access 'https://bot:s3cret@github.com/acme/app.git/': 403"))
                .isEqualTo("fatal: unable to access 'https://***@github.com/acme/app.git/': 403");
        assertThat(Git.maskCredentials("ssh://git@host/repo.git and https://host/x")).isEqualTo(
                "ssh://***@host/repo.git and https://host/x");
    }

    @Test
    void a_failures_message_is_the_end_of_stderr() {
        Git.Result result = new Git.Result(128, new byte[0], "x".repeat(5000) + "\nfatal: the end\n");

        assertThat(result.error()).endsWith("fatal: the end").hasSize(Git.MAX_MESSAGE + 1).startsWith("…");
        assertThat(new Git.Result(1, new byte[0], " ").error()).isEqualTo("git exited with 1");
    }

    @Test
    void a_revision_that_is_not_hex_is_refused_before_git_runs() {
        // A git that does not exist: reaching it would fail differently.
        GitMirrors mirrors = new GitMirrors(Path.of("/nonexistent"), "/nonexistent/git", Duration.ofSeconds(1),
                InstantSource.system(), RepositoryPolicy.ANYTHING);

        for (String revision : new String[] {"--upload-pack=touch /tmp/x", "HEAD", "abc", "a".repeat(65)}) {
            assertThatThrownBy(() -> mirrors.fetch(UUID.randomUUID(), "/repo", GitRef.branch("main"), revision,
                    Instant.now()))
                    .isInstanceOf(ConfigFetchException.class)
                    .hasMessageContaining("is not a commit id")
                    .satisfies(e -> assertThat(((ConfigFetchException) e).transientFailure()).isFalse());
        }
    }
}
