package dev.gantry.server.pipeline;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.gantry.server.http.Json;
import dev.gantry.server.project.RepositoryPolicy;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** A pipeline as {@code GET /api/v2/pipeline/{id}} shows it, with CircleCI's field names. */
record PipelineJson(UUID id, long number, String state, String createdAt, String updatedAt, String projectSlug,
                    Trigger trigger, Vcs vcs, Map<String, Object> triggerParameters, List<PipelineError> errors) {

    /** CircleCI's {@code trigger}: {@code {type, received_at, actor: {login, avatar_url}}}. */
    record Trigger(String type, String receivedAt, Actor actor) {
    }

    record Actor(String login, String avatarUrl) {
    }

    /**
     * The branch or the tag (only the one the pipeline has; neither while a default-branch pipeline is pending), the revision (null until it is known), the forge
     * ({@code provider_name}: GitHub, GitLab or Gitea; null for an API trigger), the repositories (the project's
     * unless a webhook said otherwise), and, when a webhook told them, the commit's subject and body and the pull
     * request's number ({@code review_id}) and page ({@code review_url}).
     */
    record Vcs(String providerName, @JsonInclude(JsonInclude.Include.NON_NULL) String branch,
               @JsonInclude(JsonInclude.Include.NON_NULL) String tag, String revision,
               String originRepositoryUrl, String targetRepositoryUrl,
               @JsonInclude(JsonInclude.Include.NON_NULL) Commit commit,
               @JsonInclude(JsonInclude.Include.NON_NULL) String reviewId,
               @JsonInclude(JsonInclude.Include.NON_NULL) String reviewUrl) {
    }

    record Commit(String subject, String body) {
    }

    static PipelineJson of(PipelineView view) {
        Pipeline pipeline = view.pipeline();
        PipelineTrigger trigger = pipeline.trigger();
        PipelineTrigger.Vcs vcs = trigger.vcs();
        GitRef ref = pipeline.ref();
        Commit commit = vcs.commitSubject() == null ? null : new Commit(vcs.commitSubject(), vcs.commitBody());
        return new PipelineJson(pipeline.id(), pipeline.number(), pipeline.state().label(),
                Json.time(pipeline.createdAt()), Json.time(pipeline.updatedAt()), pipeline.project().toString(),
                new Trigger(trigger.type().label(), Json.time(trigger.receivedAt()),
                        new Actor(trigger.actor(), trigger.actorAvatarUrl())),
                new Vcs(providerName(vcs.provider()), ref == null ? null : ref.branch(), ref == null ? null : ref.tag(),
                        pipeline.revision(),
                        RepositoryPolicy.withoutCredentials(orElse(vcs.originRepositoryUrl(), view.vcsUrl())),
                        RepositoryPolicy.withoutCredentials(orElse(vcs.targetRepositoryUrl(), view.vcsUrl())), commit, vcs.reviewId(), vcs.reviewUrl()),
                pipeline.parameters(), view.errors());
    }

    /** The forge as CircleCI's {@code provider_name} spells it. */
    static String providerName(String provider) {
        return provider == null ? null : switch (provider) {
            case "github" -> "GitHub";
            case "gitlab" -> "GitLab";
            case "gitea" -> "Gitea";
            default -> provider;
        };
    }

    private static String orElse(String value, String fallback) {
        return value != null ? value : fallback;
    }
}
