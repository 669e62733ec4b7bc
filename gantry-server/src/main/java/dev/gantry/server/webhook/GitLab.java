package dev.gantry.server.webhook;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gantry.server.pipeline.PipelineTrigger;
import java.util.List;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * GitLab's webhooks: {@code X-Gitlab-Event}, the secret token as it is in {@code X-Gitlab-Token}, the delivery id in
 * {@code Idempotency-Key} (the same on every retry of a delivery) or, from a GitLab older than 17.4,
 * {@code X-Gitlab-Event-UUID}. {@code Push Hook} and {@code Tag Push Hook} build the branch or tag;
 * {@code Merge Request Hook} with action open, reopen, or update with new commits builds the source branch at its
 * last commit. GitLab's payload does not name the merge request's base commit, so its
 * {@code pipeline.git.base_revision} stays empty.
 */
final class GitLab implements Forge {
    static final String PROVIDER = "gitlab";
    static final String TOKEN_HEADER = "X-Gitlab-Token";

    @Override
    public String provider() {
        return PROVIDER;
    }

    @Override
    public String eventHeader() {
        return "X-Gitlab-Event";
    }

    @Override
    public List<String> deliveryHeaders() {
        return List.of("Idempotency-Key", "X-Gitlab-Event-UUID");
    }

    @Override
    public boolean verified(String secret, byte[] body, UnaryOperator<String> headers) {
        return Signatures.tokenMatches(secret, headers.apply(TOKEN_HEADER));
    }

    @Override
    public List<String> repositoryUrls(JsonNode payload) {
        boolean mergeRequest = "merge_request".equals(Forge.text(payload, "object_kind"));
        // A merge request's payload names both sides; the repository it is for is the target.
        String side = mergeRequest && payload.path("object_attributes").has("target") ? "target" : null;
        if (side != null) {
            return Forge.texts(payload.path("object_attributes"), new String[] {side, "git_http_url"},
                    new String[] {side, "git_ssh_url"}, new String[] {side, "web_url"});
        }
        return Forge.texts(payload, new String[] {"project", "git_http_url"}, new String[] {"project", "git_ssh_url"},
                new String[] {"project", "web_url"}, new String[] {"repository", "git_http_url"},
                new String[] {"repository", "git_ssh_url"}, new String[] {"repository", "homepage"});
    }

    @Override
    public ForgeEvent read(String event, JsonNode payload) {
        return switch (event) {
            case "Push Hook", "Tag Push Hook" -> push(payload);
            case "Merge Request Hook" -> mergeRequest(payload);
            default -> new ForgeEvent.Ignored("GitLab event '" + event + "' does not trigger pipelines");
        };
    }

    private static ForgeEvent push(JsonNode payload) {
        String ref = Forge.text(payload, "ref");
        String after = Forge.text(payload, "after");
        // checkout_sha is the commit (for an annotated tag "after" is the tag object); null for a deletion.
        String checkout = Forge.text(payload, "checkout_sha");
        String revision = Forge.ZERO_COMMIT.equals(after) || checkout == null ? after : checkout;
        String message = null;
        String author = null;
        for (JsonNode commit : payload.path("commits")) {
            if (Objects.equals(Forge.text(commit, "id"), revision)) {
                message = Forge.text(commit, "message");
                author = Forge.text(commit, "author", "name");
            }
        }
        String[] subjectAndBody = PipelineTrigger.subjectAndBody(message);
        String url = Forge.text(payload, "project", "git_http_url");
        PipelineTrigger.Vcs vcs = new PipelineTrigger.Vcs(PROVIDER, null, null, null, subjectAndBody[0],
                subjectAndBody[1], author, url, url);
        return Forge.push(ref, revision, Forge.text(payload, "user_username"),
                Forge.text(payload, "user_avatar"), vcs);
    }

    private static ForgeEvent mergeRequest(JsonNode payload) {
        JsonNode mr = payload.path("object_attributes");
        String action = Forge.text(mr, "action");
        boolean newCommits = "update".equals(action) && Forge.text(mr, "oldrev") != null;
        if (!"open".equals(action) && !"reopen".equals(action) && !newCommits) {
            return new ForgeEvent.Ignored("merge request action '" + action + "'"
                    + ("update".equals(action) ? " without new commits" : "") + " does not trigger pipelines");
        }
        String origin = Forge.text(mr, "source", "git_http_url");
        String target = Forge.text(mr, "target", "git_http_url");
        boolean fork = !Objects.equals(Forge.text(mr, "source_project_id"), Forge.text(mr, "target_project_id"));
        String[] subjectAndBody = PipelineTrigger.subjectAndBody(Forge.text(mr, "last_commit", "message"));
        PipelineTrigger.Vcs vcs = new PipelineTrigger.Vcs(PROVIDER, null, Forge.text(mr, "iid"),
                Forge.text(mr, "url"), subjectAndBody[0], subjectAndBody[1],
                Forge.text(mr, "last_commit", "author", "name"), origin != null ? origin : target, target);
        return Forge.pullRequest(Forge.text(mr, "source_branch"), fork, Forge.text(mr, "last_commit", "id"),
                Forge.text(payload, "user", "username"), Forge.text(payload, "user", "avatar_url"), vcs);
    }
}
