package dev.gantry.server.pipeline;

import java.util.Objects;

/**
 * One webhook delivery from a forge, named as the forge names it: a redelivery of it carries the same id.
 *
 * @param provider {@code github}, {@code gitlab} or {@code gitea}
 * @param id       the forge's delivery id ({@code X-GitHub-Delivery}, {@code X-Gitea-Delivery}, GitLab's
 *                 {@code Idempotency-Key} or {@code X-Gitlab-Event-UUID})
 */
public record Delivery(String provider, String id) {
    public Delivery {
        Objects.requireNonNull(provider, "provider");
        Objects.requireNonNull(id, "id");
    }
}
