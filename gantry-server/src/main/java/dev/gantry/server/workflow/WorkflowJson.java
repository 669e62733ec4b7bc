package dev.gantry.server.workflow;

import dev.gantry.server.http.Json;
import java.util.UUID;

/** A workflow as CircleCI's API v2 shows it. */
record WorkflowJson(UUID id, String name, String status, String createdAt, String stoppedAt, UUID pipelineId,
                    long pipelineNumber, String projectSlug) {
    static WorkflowJson of(Workflow workflow) {
        return new WorkflowJson(workflow.id(), workflow.name(), workflow.status(), Json.time(workflow.createdAt()),
                workflow.stoppedAt() == null ? null : Json.time(workflow.stoppedAt()), workflow.pipelineId(),
                workflow.pipelineNumber(), workflow.projectSlug());
    }
}
