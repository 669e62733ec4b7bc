package dev.gantry.server.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gantry.server.http.Json;
import dev.gantry.server.pipeline.GitRef;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import org.junit.jupiter.api.Test;

/** What each forge's recorded payloads ask for (src/test/resources/webhooks, see its README). */
class ForgeTest {
    @Test
    void a_github_branch_push_builds_the_branch_at_after_with_its_head_commit() {
        ForgeEvent.Build build = build(new GitHub(), "push", "github/push.json");

        assertThat(build.ref()).isEqualTo(GitRef.branch("master"));
        assertThat(build.revision()).isEqualTo("6113728f27ae82c7b1a177c8d03f9e96e0adf246");
        assertThat(build.actor()).isEqualTo("Codertocat");
        assertThat(build.vcs().provider()).isEqualTo("github");
        assertThat(build.vcs().commitSubject()).isEqualTo("Initial commit");
        assertThat(build.vcs().baseRevision()).isNull();
        assertThat(build.vcs().originRepositoryUrl()).isEqualTo("https://github.com/Codertocat/Hello-World.git");
    }

    @Test
    void a_github_tag_deletion_is_ignored() {
        assertThat(new GitHub().read("push", payload("github/push-tag-deleted.json")))
                .isInstanceOf(ForgeEvent.Ignored.class);
    }

    @Test
    void a_github_pull_request_opened_builds_its_head_with_base_and_number() {
        ForgeEvent.Build build = build(new GitHub(), "pull_request", "github/pull_request-opened.json");

        assertThat(build.ref()).isEqualTo(GitRef.branch("changes"));
        assertThat(build.revision()).isEqualTo("ec26c3e57ca3a959ca5aad62de7213c562f8c821");
        assertThat(build.vcs().baseRevision()).isEqualTo("f95f852bd8fca8fcc58a9a2d6c842781e32a215e");
        assertThat(build.vcs().reviewId()).isEqualTo("2");
        assertThat(build.vcs().reviewUrl()).isEqualTo("https://github.com/Codertocat/Hello-World/pull/2");
    }

    @Test
    void a_closed_pull_request_and_other_events_are_ignored() {
        assertThat(new GitHub().read("pull_request", payload("github/pull_request-closed.json")))
                .isInstanceOf(ForgeEvent.Ignored.class);
        assertThat(new GitHub().read("create", payload("github/create.json")))
                .isInstanceOf(ForgeEvent.Ignored.class);
    }

    @Test
    void github_names_the_repository_by_clone_ssh_and_web_url() {
        assertThat(new GitHub().repositoryUrls(payload("github/push.json"))).contains(
                "https://github.com/Codertocat/Hello-World.git", "git@github.com:Codertocat/Hello-World.git");
    }

    @Test
    void a_gitlab_push_builds_the_branch_at_its_checkout_sha_with_that_commits_message() {
        ForgeEvent.Build build = build(new GitLab(), "Push Hook", "gitlab/push.json");

        assertThat(build.ref()).isEqualTo(GitRef.branch("master"));
        assertThat(build.revision()).isEqualTo("da1560886d4f094c3e6c9ef40349f7d38b5d27d7");
        assertThat(build.actor()).isEqualTo("jsmith");
        assertThat(build.vcs().commitSubject()).isEqualTo("fixed readme");
        assertThat(build.vcs().commitAuthor()).isEqualTo("GitLab dev user");
    }

    @Test
    void a_gitlab_tag_push_builds_the_tag() {
        ForgeEvent.Build build = build(new GitLab(), "Tag Push Hook", "gitlab/tag_push.json");

        assertThat(build.ref()).isEqualTo(GitRef.tag("v1.0.0"));
        assertThat(build.revision()).isEqualTo("82b3d5ae55f7080f1e6022629cdb57bfae7cccc7");
    }

    @Test
    void a_gitlab_merge_request_builds_its_source_branch_and_is_found_by_its_target() {
        ForgeEvent.Build build = build(new GitLab(), "Merge Request Hook", "gitlab/merge_request-open.json");

        assertThat(build.ref()).isEqualTo(GitRef.branch("ms-viewport"));
        assertThat(build.revision()).isEqualTo("da1560886d4f094c3e6c9ef40349f7d38b5d27d7");
        assertThat(build.vcs().reviewId()).isEqualTo("1");
        assertThat(build.vcs().reviewUrl()).isEqualTo("http://example.com/diaspora/merge_requests/1");
        assertThat(build.actor()).isEqualTo("root");
        assertThat(new GitLab().repositoryUrls(payload("gitlab/merge_request-open.json")))
                .first().isEqualTo("http://example.com/awesome_space/awesome_project.git");
    }

    @Test
    void a_gitlab_merge_request_update_without_new_commits_is_ignored() {
        JsonNode payload = payload("gitlab/merge_request-open.json");
        ((com.fasterxml.jackson.databind.node.ObjectNode) payload.get("object_attributes")).put("action", "update");

        assertThat(new GitLab().read("Merge Request Hook", payload)).isInstanceOf(ForgeEvent.Ignored.class);
    }

    @Test
    void a_gitea_push_and_pull_request_build() {
        ForgeEvent.Build push = build(new Gitea(), "push", "gitea/push.json");
        assertThat(push.ref()).isEqualTo(GitRef.branch("develop"));
        assertThat(push.revision()).isEqualTo("bffeb74224043ba2feb48d137756c8a9331c449a");
        assertThat(push.vcs().commitSubject()).isEqualTo("Webhooks Yay!");
        assertThat(push.actor()).isEqualTo("gitea");

        ForgeEvent.Build pr = build(new Gitea(), "pull_request", "gitea/pull_request-opened.json");
        assertThat(pr.ref()).isEqualTo(GitRef.branch("develop"));
        assertThat(pr.vcs().baseRevision()).isEqualTo("28e1879d029cb852e4844d9c718537df08844e03");
        assertThat(pr.vcs().reviewId()).isEqualTo("7");
        assertThat(pr.vcs().provider()).isEqualTo("gitea");
    }

    @Test
    void a_pull_request_from_a_fork_builds_branch_pull_n() {
        JsonNode payload = payload("github/pull_request-opened.json");
        ((com.fasterxml.jackson.databind.node.ObjectNode) payload.at("/pull_request/head/repo"))
                .put("clone_url", "https://github.com/forker/Hello-World.git");

        ForgeEvent read = new GitHub().read("pull_request", payload);

        assertThat(((ForgeEvent.Build) read).ref()).isEqualTo(GitRef.branch("pull/2"));
        assertThat(((ForgeEvent.Build) read).vcs().originRepositoryUrl())
                .isEqualTo("https://github.com/forker/Hello-World.git");
    }

    private static ForgeEvent.Build build(Forge forge, String event, String resource) {
        ForgeEvent read = forge.read(event, payload(resource));
        assertThat(read).as(read.toString()).isInstanceOf(ForgeEvent.Build.class);
        return (ForgeEvent.Build) read;
    }

    static JsonNode payload(String resource) {
        try (InputStream in = ForgeTest.class.getResourceAsStream("/webhooks/" + resource)) {
            return Json.MAPPER.readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
