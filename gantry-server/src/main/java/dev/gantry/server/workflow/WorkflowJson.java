package dev.gantry.server.workflow;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.gantry.server.auth.ActorIds;
import dev.gantry.server.http.Json;
import dev.gantry.server.run.WorkflowStatus;
import java.util.UUID;

/**
 * A workflow as CircleCI's API v2 shows it. {@code started_by}, {@code canceled_by} and {@code errored_by} are actor
 * ids ({@link ActorIds}); the last two only when the workflow was canceled through the API or errored (then the actor
 * it ran for, its starter). {@code tag} is {@code setup} for a setup workflow, else null.
 */
record WorkflowJson(UUID id, String name, String status, String createdAt, String stoppedAt, UUID pipelineId,
                    long pipelineNumber, String projectSlug, UUID startedBy,
                    @JsonInclude(JsonInclude.Include.NON_NULL) UUID canceledBy,
                    @JsonInclude(JsonInclude.Include.NON_NULL) UUID erroredBy, String tag) {
    static final String SETUP = "setup";

    static WorkflowJson of(Workflow workflow) {
        UUID startedBy = ActorIds.of(workflow.startedBy());
        return new WorkflowJson(workflow.id(), workflow.name(), workflow.status(), Json.time(workflow.createdAt()),
                workflow.stoppedAt() == null ? null : Json.time(workflow.stoppedAt()), workflow.pipelineId(),
                workflow.pipelineNumber(), workflow.projectSlug(), startedBy,
                workflow.canceledBy() == null ? null : ActorIds.of(workflow.canceledBy()),
                WorkflowStatus.ERROR.word().equals(workflow.status()) ? startedBy : null,
                workflow.setup() ? SETUP : null);
    }
}
