package dev.gantry.server.pipeline;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.gantry.server.http.Json;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** A pipeline as {@code GET /api/v2/pipeline/{id}} shows it, with CircleCI's field names. */
record PipelineJson(UUID id, long number, String state, String createdAt, String updatedAt, String projectSlug,
                    Vcs vcs, Map<String, Object> triggerParameters, List<PipelineError> errors) {

    /**
     * The branch or the tag (only the one the pipeline has), the revision (null until it is known) and the
     * repository; origin and target are the same until forks are known.
     */
    record Vcs(@JsonInclude(JsonInclude.Include.NON_NULL) String branch,
               @JsonInclude(JsonInclude.Include.NON_NULL) String tag, String revision,
               String originRepositoryUrl, String targetRepositoryUrl) {
    }

    static PipelineJson of(PipelineView view) {
        Pipeline pipeline = view.pipeline();
        return new PipelineJson(pipeline.id(), pipeline.number(), pipeline.state().label(),
                Json.time(pipeline.createdAt()), Json.time(pipeline.updatedAt()), pipeline.project().toString(),
                new Vcs(pipeline.ref().branch(), pipeline.ref().tag(), pipeline.revision(), view.vcsUrl(),
                        view.vcsUrl()), pipeline.parameters(), view.errors());
    }
}
