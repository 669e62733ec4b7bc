package dev.gantry.server.usage;

import java.time.Instant;
import java.util.UUID;

/**
 * What the ledger reads about one task attempt: the task's row, its job, project, workflow and pipeline. The charge
 * is a function of this alone ({@link UsageRule}), so that it is the same at the task's end and in a backfill.
 *
 * @param actor      who started the workflow: a rerun's caller, else the pipeline's trigger actor
 * @param acceptedAt when the agent first showed it had the task (a heartbeat, any call with the lease, or its
 *                   completion); null when it never did
 * @param givenUpAt  when the lease sweeper gave the task up as lost, if it did
 */
public record TaskRecord(UUID jobId, int nodeIndex, int attempt, String organization, UUID projectId, String projectName,
                  String jobName, String actor, String resourceClass, UUID agentId, String status,
                  Instant startedAt, Instant acceptedAt, Instant stoppedAt, Instant givenUpAt) {
}
