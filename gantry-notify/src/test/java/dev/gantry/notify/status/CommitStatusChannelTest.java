package dev.gantry.notify.status;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gantry.notify.Event;
import dev.gantry.notify.http.OutboundHttp;
import java.net.URI;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class CommitStatusChannelTest {
    static final String SHA = "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678";

    static Event event(Event.Type type, String status) {
        return new Event(UUID.randomUUID(), type, "2026-12-10T10:02:00.000Z", new Event.Snapshot(
                new Event.Project(UUID.randomUUID(), "app", "gantry/acme/app"),
                new Event.Organization(UUID.randomUUID(), "acme"),
                new Event.Workflow(UUID.randomUUID(), "build", status, "2026-12-10T10:00:00.000Z", null,
                        "https://ci.example/pipelines/gantry/acme/app/7"),
                new Event.Pipeline(UUID.randomUUID(), 7, "2026-12-10T10:00:00.000Z", null,
                        new Event.Vcs("github", null, null, SHA, "main", null)),
                null));
    }

    static ForgeRepository repository(String url, Forge forge) {
        return ForgeRepository.of(url, forge, null, new StringBuilder()).orElseThrow();
    }

    @Test
    void the_repository_url_says_the_forge_its_api_and_the_repository() {
        assertThat(repository("https://github.com/Acme/App.git", null))
                .isEqualTo(new ForgeRepository(Forge.GITHUB, URI.create("https://api.github.com"), "Acme/App"));
        assertThat(repository("git@gitlab.com:group/sub/app.git", null))
                .isEqualTo(new ForgeRepository(Forge.GITLAB, URI.create("https://gitlab.com/api/v4"),
                        "group/sub/app"));
        assertThat(repository("http://git.example:3000/acme/app/", Forge.GITEA))
                .isEqualTo(new ForgeRepository(Forge.GITEA, URI.create("http://git.example:3000/api/v1"),
                        "acme/app"));
        assertThat(repository("ssh://git@ghe.example/acme/app", Forge.GITHUB).api())
                .isEqualTo(URI.create("https://ghe.example/api/v3"));
        StringBuilder problem = new StringBuilder();
        assertThat(ForgeRepository.of("https://git.example/acme/app", null, null, problem)).isEmpty();
        assertThat(problem.toString()).contains("\"forge\"");
        assertThat(ForgeRepository.of("/srv/git/app", Forge.GITHUB, null, new StringBuilder())).isEmpty();
    }

    @Test
    void github_gets_its_path_bearer_token_and_words() throws Exception {
        OutboundHttp.Post post = CommitStatusChannel.request(new StatusDestination(UUID.randomUUID(),
                repository("https://github.com/acme/app", null), "t0ken"), event(Event.Type.WORKFLOW_COMPLETED,
                "failed"));
        assertThat(post.url()).isEqualTo(URI.create("https://api.github.com/repos/acme/app/statuses/" + SHA));
        assertThat(post.headers()).containsEntry("Authorization", "Bearer t0ken")
                .containsEntry("Accept", "application/vnd.github+json");
        JsonNode body = Event.JSON.readTree(post.body());
        assertThat(body.path("state").asText()).isEqualTo("failure");
        assertThat(body.path("context").asText()).isEqualTo("ci/gantry: build");
        assertThat(body.path("target_url").asText()).isEqualTo("https://ci.example/pipelines/gantry/acme/app/7");
        assertThat(body.path("description").asText()).isEqualTo("Workflow build: failed");
    }

    @Test
    void gitlab_gets_an_encoded_project_path_a_private_token_and_its_own_words() throws Exception {
        OutboundHttp.Post post = CommitStatusChannel.request(new StatusDestination(UUID.randomUUID(),
                repository("https://gitlab.com/group/app", null), "glpat"), event(Event.Type.WORKFLOW_COMPLETED,
                "canceled"));
        assertThat(post.url().getRawPath()).isEqualTo("/api/v4/projects/group%2Fapp/statuses/" + SHA);
        assertThat(post.headers()).containsEntry("PRIVATE-TOKEN", "glpat").doesNotContainKey("Authorization");
        JsonNode body = Event.JSON.readTree(post.body());
        assertThat(body.path("state").asText()).isEqualTo("canceled");
        assertThat(body.path("name").asText()).isEqualTo("ci/gantry: build");
        assertThat(body.path("ref").asText()).isEqualTo("main");
    }

    @Test
    void a_start_is_pending_everywhere_and_the_ends_map_to_each_forges_words() {
        for (Forge forge : Forge.values()) {
            assertThat(CommitStatusChannel.state(forge, event(Event.Type.WORKFLOW_STARTED, "running")))
                    .isEqualTo("pending");
            assertThat(CommitStatusChannel.state(forge, event(Event.Type.WORKFLOW_COMPLETED, "success")))
                    .isEqualTo("success");
        }
        assertThat(CommitStatusChannel.state(Forge.GITEA, event(Event.Type.WORKFLOW_COMPLETED, "error")))
                .isEqualTo("error");
        assertThat(CommitStatusChannel.state(Forge.GITLAB, event(Event.Type.WORKFLOW_COMPLETED, "error")))
                .isEqualTo("failed");
        assertThat(Optional.of(CommitStatusChannel.state(Forge.GITHUB, event(Event.Type.WORKFLOW_COMPLETED,
                "canceled")))).contains("error");
    }
}
