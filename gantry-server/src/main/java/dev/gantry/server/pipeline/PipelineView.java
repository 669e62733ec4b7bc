package dev.gantry.server.pipeline;

import java.util.List;
import java.util.Objects;

/**
 * A pipeline as its API view shows it: the pipeline, its project's repository, and why it errored.
 *
 * @param vcsUrl the project's repository, CircleCI's {@code origin_repository_url}
 * @param errors empty unless the pipeline is errored
 */
record PipelineView(Pipeline pipeline, String vcsUrl, List<PipelineError> errors) {
    PipelineView {
        Objects.requireNonNull(pipeline, "pipeline");
        Objects.requireNonNull(vcsUrl, "vcsUrl");
        errors = List.copyOf(errors);
    }
}
