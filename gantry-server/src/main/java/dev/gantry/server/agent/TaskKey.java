package dev.gantry.server.agent;

import java.util.Objects;
import java.util.UUID;

/** One parallel node of a job: the key of a {@code job_task} row. */
public record TaskKey(UUID jobId, int nodeIndex) {
    public TaskKey {
        Objects.requireNonNull(jobId, "jobId");
        if (nodeIndex < 0) {
            throw new IllegalArgumentException("node index must be >= 0, got " + nodeIndex);
        }
    }

    @Override
    public String toString() {
        return jobId + "/" + nodeIndex;
    }
}
