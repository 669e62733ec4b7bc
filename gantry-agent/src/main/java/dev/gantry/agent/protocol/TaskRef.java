package dev.gantry.agent.protocol;

/** One claimed task, as every call about it names it: the job's id, the parallel node's index and the lease. */
public record TaskRef(String jobId, int nodeIndex, String lease) {
    public TaskRef {
        if (jobId == null || jobId.isBlank() || lease == null || lease.isBlank() || nodeIndex < 0) {
            throw new IllegalArgumentException("a task needs a job id, a node index >= 0 and a lease, got "
                    + jobId + "/" + nodeIndex + " lease " + lease);
        }
    }

    @Override
    public String toString() {
        return jobId + "/" + nodeIndex;
    }
}
