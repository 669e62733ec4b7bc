package dev.gantry.server.pipeline;

import dev.gantry.server.project.ProjectSlug;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * A pipeline as stored.
 *
 * @param number     counts the project's pipelines from 1, without gaps
 * @param ref        the branch or tag; null for a trigger that named neither until the plan builder has resolved the
 *                   repository's default branch (so only while pending, or errored before that)
 * @param revision   the commit to build, or null when the trigger named none (the plan builder resolves the ref)
 * @param parameters the pipeline parameters the trigger gave (strings, numbers, booleans), sorted by name
 * @param trigger    what started it
 */
public record Pipeline(UUID id, ProjectSlug project, long number, PipelineState state, GitRef ref, String revision,
                       Map<String, Object> parameters, Instant createdAt, Instant updatedAt,
                       PipelineTrigger trigger) {
    public Pipeline {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(project, "project");
        Objects.requireNonNull(state, "state");
        if (ref == null && state != PipelineState.PENDING && state != PipelineState.ERRORED) {
            throw new IllegalArgumentException("a " + state.label() + " pipeline has a branch or tag");
        }
        Objects.requireNonNull(parameters, "parameters");
        Objects.requireNonNull(createdAt, "createdAt");
        Objects.requireNonNull(updatedAt, "updatedAt");
        Objects.requireNonNull(trigger, "trigger");
    }

    /** This pipeline on {@code branch}: a default-branch pipeline once the plan builder has resolved it. */
    public Pipeline onBranch(String branch) {
        return new Pipeline(id, project, number, state, GitRef.branch(branch), revision, parameters, createdAt, updatedAt,
                trigger);
    }

    /** A pipeline the admin triggered through the API when it was created. */
    public Pipeline(UUID id, ProjectSlug project, long number, PipelineState state, GitRef ref, String revision,
                    Map<String, Object> parameters, Instant createdAt, Instant updatedAt) {
        this(id, project, number, state, ref, revision, parameters, createdAt, updatedAt,
                PipelineTrigger.api(PipelineTrigger.ADMIN, createdAt));
    }
}
