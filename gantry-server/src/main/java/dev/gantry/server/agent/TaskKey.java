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

    /** The key {@link #toString()} wrote. */
    public static TaskKey parse(String text) {
        int slash = text.lastIndexOf('/');
        return new TaskKey(UUID.fromString(text.substring(0, slash)), Integer.parseInt(text.substring(slash + 1)));
    }

    /** {@code <job id>/<node index>}: the task's id in the scheduler's snapshot, too. */
    @Override
    public String toString() {
        return jobId + "/" + nodeIndex;
    }
}
