package dev.gantry.server.webhook;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gantry.server.pipeline.GitRef;
import dev.gantry.server.pipeline.PipelineTrigger;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

/**
 * One forge's webhook dialect: its headers, its signature, where its payloads name the repository, and which events
 * build what. Pure and thread-safe; {@code headers} maps a header name (any case) to its value or null.
 */
interface Forge {
    /** {@code github}, {@code gitlab} or {@code gitea}: the route's last segment and the stored provider. */
    String provider();

    /** The header that names the event, e.g. {@code X-GitHub-Event}. */
    String eventHeader();

    /** The headers that carry the delivery id, the first one present counting. */
    List<String> deliveryHeaders();

    /** Whether the delivery proves it knows {@code secret}. */
    boolean verified(String secret, byte[] body, UnaryOperator<String> headers);

    /** The URLs the payload names its repository by (clone, SSH and web URLs); empty when it names none. */
    List<String> repositoryUrls(JsonNode payload);

    /** What the event {@code event} with {@code payload} asks for. */
    ForgeEvent read(String event, JsonNode payload);

    /** The delivery id in {@code headers}, if there is one. */
    default Optional<String> deliveryId(UnaryOperator<String> headers) {
        return deliveryHeaders().stream().map(headers).filter(id -> id != null && !id.isBlank())
                .map(String::strip).findFirst();
    }

    /** The forge for the route segment {@code provider}, if Gantry speaks its dialect. */
    static Optional<Forge> of(String provider) {
        return switch (provider) {
            case GitHub.PROVIDER -> Optional.of(new GitHub());
            case GitLab.PROVIDER -> Optional.of(new GitLab());
            case Gitea.PROVIDER -> Optional.of(new Gitea());
            default -> Optional.empty();
        };
    }

    // What the forges share: reading payloads.

    String ZERO_COMMIT = "0000000000000000000000000000000000000000";
    Pattern COMMIT = Pattern.compile("[0-9a-fA-F]{7,64}");

    /** The text at {@code path} under {@code node}, or null when any step is missing or null. */
    static String text(JsonNode node, String... path) {
        JsonNode at = node;
        for (String step : path) {
            if (at == null || !at.isObject()) {
                return null;
            }
            at = at.get(step);
        }
        return at == null || at.isNull() || at.isContainerNode() ? null : at.asText();
    }

    /** The texts found at each of {@code paths}, for {@link #repositoryUrls}. */
    static List<String> texts(JsonNode node, String[]... paths) {
        List<String> found = new ArrayList<>();
        for (String[] path : paths) {
            String value = text(node, path);
            if (value != null) {
                found.add(value);
            }
        }
        return found;
    }

    /**
     * A push of {@code ref} ({@code refs/heads/…} or {@code refs/tags/…}) to {@code revision}: a build, or ignored
     * for a deletion, another kind of ref or a name or commit Gantry does not build.
     */
    static ForgeEvent push(String ref, String revision, String actor, String avatarUrl, PipelineTrigger.Vcs vcs) {
        if (revision == null || revision.equals(ZERO_COMMIT)) {
            return new ForgeEvent.Ignored("a deletion of " + ref);
        }
        GitRef gitRef;
        if (ref != null && ref.startsWith("refs/heads/")) {
            gitRef = refOrNull(GitRef.Kind.BRANCH, ref.substring("refs/heads/".length()));
        } else if (ref != null && ref.startsWith("refs/tags/")) {
            gitRef = refOrNull(GitRef.Kind.TAG, ref.substring("refs/tags/".length()));
        } else {
            return new ForgeEvent.Ignored("a push of " + ref + ", neither a branch nor a tag");
        }
        if (gitRef == null) {
            return new ForgeEvent.Ignored("a push of " + ref + ", whose name Gantry does not build");
        }
        return build(gitRef, revision, actor, avatarUrl, vcs);
    }

    /**
     * A pull request's head {@code branch} at {@code revision}; from a fork ({@code fork}) the branch is named
     * {@code pull/N} as CircleCI names it, since the fork's branch name means nothing in the target repository.
     */
    static ForgeEvent pullRequest(String branch, boolean fork, String revision, String actor, String avatarUrl,
                                  PipelineTrigger.Vcs vcs) {
        String name = fork ? "pull/" + vcs.reviewId() : branch;
        GitRef ref = refOrNull(GitRef.Kind.BRANCH, name);
        if (ref == null) {
            return new ForgeEvent.Ignored("a pull request from branch '" + name + "', whose name Gantry does not "
                    + "build");
        }
        return build(ref, revision, actor, avatarUrl, vcs);
    }

    private static ForgeEvent build(GitRef ref, String revision, String actor, String avatarUrl,
                                    PipelineTrigger.Vcs vcs) {
        if (revision == null || !COMMIT.matcher(revision).matches()) {
            return new ForgeEvent.Ignored("no commit id in the payload");
        }
        return new ForgeEvent.Build(ref, revision, actor == null ? "unknown" : actor, avatarUrl, vcs);
    }

    private static GitRef refOrNull(GitRef.Kind kind, String name) {
        return GitRef.validName(name) ? new GitRef(kind, name) : null;
    }
}
