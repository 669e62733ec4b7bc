package dev.gantry.server.webhook;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * Gitea's webhooks (also Forgejo's): {@code X-Gitea-Event}, {@code X-Gitea-Delivery}, {@code X-Gitea-Signature:
 * <hex HMAC-SHA256 of the body>}. Payloads are shaped as GitHub's; a pull request's new commits are action
 * {@code synchronized}.
 */
final class Gitea implements Forge {
    static final String PROVIDER = "gitea";
    static final String SIGNATURE_HEADER = "X-Gitea-Signature";
    private static final Set<String> BUILT_ACTIONS = Set.of("opened", "synchronized", "synchronize", "reopened");

    @Override
    public String provider() {
        return PROVIDER;
    }

    @Override
    public String eventHeader() {
        return "X-Gitea-Event";
    }

    @Override
    public List<String> deliveryHeaders() {
        return List.of("X-Gitea-Delivery");
    }

    @Override
    public boolean verified(String secret, byte[] body, UnaryOperator<String> headers) {
        return Signatures.hmacSha256Matches(secret, body, headers.apply(SIGNATURE_HEADER));
    }

    @Override
    public List<String> repositoryUrls(JsonNode payload) {
        return GitHub.repositoryUrlsOf(payload);
    }

    @Override
    public ForgeEvent read(String event, JsonNode payload) {
        return switch (event) {
            case "push" -> GitHub.push(PROVIDER, payload);
            case "pull_request" -> GitHub.pullRequest(PROVIDER, payload, BUILT_ACTIONS);
            default -> new ForgeEvent.Ignored("Gitea event '" + event + "' does not trigger pipelines");
        };
    }
}
