package dev.gantry.server.job;

import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * A job with what its details show of its workflow, pipeline and project.
 *
 * @param executor {@code {"type", "image"}} as the plan builder recorded it; empty for approvals and no-ops
 * @param contexts the contexts its config names
 */
record Job(UUID id, long number, String name, String type, String status, String resourceClass,
           Map<String, Object> executor, int parallelism, List<String> contexts, Instant createdAt, Instant queuedAt,
           Instant startedAt, Instant stoppedAt, UUID workflowId, String workflowName, UUID pipelineId,
           String organization, String projectName, String vcsUrl, UUID projectId) {
    Job {
        Objects.requireNonNull(id, "id");
        executor = executor == null ? Map.of() : Collections.unmodifiableMap(executor);
        contexts = List.copyOf(contexts);
    }

    /** One node's run of one step, as the agent reported it. */
    record StepRun(int stepIndex, int nodeIndex, String name, String status, Integer exitCode, Instant startedAt,
                   Instant stoppedAt) {
    }

    /** One parallel node of the job. */
    record Task(int nodeIndex, String status) {
    }
}
