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
 * @param revision   the commit to build, or null when the trigger named none (the plan builder resolves the ref)
 * @param parameters the pipeline parameters the trigger gave (strings, numbers, booleans), sorted by name
 */
public record Pipeline(UUID id, ProjectSlug project, long number, PipelineState state, GitRef ref, String revision,
                       Map<String, Object> parameters, Instant createdAt, Instant updatedAt) {
    public Pipeline {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(project, "project");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(ref, "ref");
        Objects.requireNonNull(parameters, "parameters");
        Objects.requireNonNull(createdAt, "createdAt");
        Objects.requireNonNull(updatedAt, "updatedAt");
    }
}
