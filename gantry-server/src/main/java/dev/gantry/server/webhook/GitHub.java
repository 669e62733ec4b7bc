package dev.gantry.server.webhook;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gantry.server.pipeline.PipelineTrigger;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * GitHub's webhooks: {@code X-GitHub-Event}, {@code X-GitHub-Delivery}, {@code X-Hub-Signature-256:
 * sha256=<hex HMAC-SHA256 of the body>}. {@code push} builds the branch or tag at {@code after};
 * {@code pull_request} opened, synchronize or reopened builds the head at its sha.
 */
final class GitHub implements Forge {
    static final String PROVIDER = "github";
    static final String SIGNATURE_HEADER = "X-Hub-Signature-256";
    private static final String SIGNATURE_PREFIX = "sha256=";
    private static final Set<String> BUILT_ACTIONS = Set.of("opened", "synchronize", "reopened");

    @Override
    public String provider() {
        return PROVIDER;
    }

    @Override
    public String eventHeader() {
        return "X-GitHub-Event";
    }

    @Override
    public List<String> deliveryHeaders() {
        return List.of("X-GitHub-Delivery");
    }

    @Override
    public boolean verified(String secret, byte[] body, UnaryOperator<String> headers) {
        String signature = headers.apply(SIGNATURE_HEADER);
        return signature != null && signature.startsWith(SIGNATURE_PREFIX)
                && Signatures.hmacSha256Matches(secret, body, signature.substring(SIGNATURE_PREFIX.length()));
    }

    @Override
    public List<String> repositoryUrls(JsonNode payload) {
        return repositoryUrlsOf(payload);
    }

    /** The repository URLs of a GitHub-shaped payload (Gitea's are shaped alike). */
    static List<String> repositoryUrlsOf(JsonNode payload) {
        return Forge.texts(payload, new String[] {"repository", "clone_url"}, new String[] {"repository", "ssh_url"},
                new String[] {"repository", "html_url"}, new String[] {"repository", "git_url"});
    }

    @Override
    public ForgeEvent read(String event, JsonNode payload) {
        return switch (event) {
            case "push" -> push(PROVIDER, payload);
            case "pull_request" -> pullRequest(PROVIDER, payload, BUILT_ACTIONS);
            default -> new ForgeEvent.Ignored("GitHub event '" + event + "' does not trigger pipelines");
        };
    }

    /** A push as GitHub and Gitea describe it. */
    static ForgeEvent push(String provider, JsonNode payload) {
        if (payload.path("deleted").asBoolean(false)) {
            return new ForgeEvent.Ignored("a deletion of " + Forge.text(payload, "ref"));
        }
        String ref = Forge.text(payload, "ref");
        String after = Forge.text(payload, "after");
        // For an annotated tag "after" is the tag object; the build wants its commit, the head commit.
        String headCommit = Forge.text(payload, "head_commit", "id");
        String revision = ref != null && ref.startsWith("refs/tags/") && headCommit != null
                && !Forge.ZERO_COMMIT.equals(after) ? headCommit : after;
        String message = Forge.text(payload, "head_commit", "message");
        String author = Forge.text(payload, "head_commit", "author", "name");
        if (message == null) {
            JsonNode commits = payload.path("commits");
            // Gitea's older payloads have no head_commit: the last commit pushed is the head.
            if (commits.isArray() && !commits.isEmpty()) {
                JsonNode last = commits.get(commits.size() - 1);
                message = Forge.text(last, "message");
                author = Forge.text(last, "author", "name");
            }
        }
        String[] subjectAndBody = PipelineTrigger.subjectAndBody(message);
        String url = Forge.text(payload, "repository", "clone_url");
        PipelineTrigger.Vcs vcs = new PipelineTrigger.Vcs(provider, null, null, null, subjectAndBody[0],
                subjectAndBody[1], author, url, url);
        return Forge.push(ref, revision, actor(payload), Forge.text(payload, "sender", "avatar_url"), vcs);
    }

    /** A pull request event as GitHub and Gitea describe it; {@code built} are the actions that build. */
    static ForgeEvent pullRequest(String provider, JsonNode payload, Set<String> built) {
        String action = Forge.text(payload, "action");
        if (!built.contains(action)) {
            return new ForgeEvent.Ignored("pull request action '" + action + "' does not trigger pipelines");
        }
        JsonNode pr = payload.path("pull_request");
        String number = Forge.text(pr, "number") != null ? Forge.text(pr, "number") : Forge.text(payload, "number");
        String origin = Forge.text(pr, "head", "repo", "clone_url");
        String target = Forge.text(pr, "base", "repo", "clone_url");
        if (target == null) {
            target = Forge.text(payload, "repository", "clone_url");
        }
        boolean fork = origin != null && target != null && !Objects.equals(RepoUrls.key(origin), RepoUrls.key(target));
        PipelineTrigger.Vcs vcs = new PipelineTrigger.Vcs(provider, Forge.text(pr, "base", "sha"), number,
                Forge.text(pr, "html_url"), null, null, null, origin != null ? origin : target, target);
        return Forge.pullRequest(Forge.text(pr, "head", "ref"), fork, Forge.text(pr, "head", "sha"),
                actor(payload), Forge.text(payload, "sender", "avatar_url"), vcs);
    }

    private static String actor(JsonNode payload) {
        String sender = Forge.text(payload, "sender", "login");
        if (sender != null) {
            return sender;
        }
        String pusher = Forge.text(payload, "pusher", "login");
        return pusher != null ? pusher : Forge.text(payload, "pusher", "name");
    }
}
