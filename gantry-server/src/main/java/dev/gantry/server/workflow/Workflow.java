package dev.gantry.server.workflow;

import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * A workflow as the API shows it, with what it shows of its pipeline.
 *
 * @param status    a {@link dev.gantry.server.run.WorkflowStatus} word
 * @param stoppedAt  null until the workflow has ended
 * @param startedBy  the login of who started it: the pipeline's trigger actor, or who reran it
 * @param canceledBy the login of who canceled it through the API, or null
 * @param setup      whether it is the setup workflow of a pipeline with dynamic configuration
 */
record Workflow(UUID id, String name, String status, UUID pipelineId, long pipelineNumber, String projectSlug,
                Instant createdAt, Instant stoppedAt, String startedBy, String canceledBy, boolean setup) {
    Workflow {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(pipelineId, "pipelineId");
        Objects.requireNonNull(projectSlug, "projectSlug");
        Objects.requireNonNull(createdAt, "createdAt");
        Objects.requireNonNull(startedBy, "startedBy");
    }
}
