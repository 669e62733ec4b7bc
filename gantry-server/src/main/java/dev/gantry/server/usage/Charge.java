package dev.gantry.server.usage;

import java.time.Instant;
import java.time.LocalDate;
import java.util.UUID;

/**
 * One row of the ledger, as {@link UsageRule} computes it: who ran what where, for how long, and what it costs.
 *
 * @param runMs   from the task's start (its claim) to its end, in whole milliseconds
 * @param minutes started minutes of {@code runMs}, at least one
 * @param day     the UTC day of {@code endedAt}
 */
public record Charge(UUID jobId, int nodeIndex, int attempt, String organization, UUID projectId, String projectName,
              String jobName, String actor, String resourceClass, UUID agentId, Instant startedAt, Instant endedAt,
              long runMs, long minutes, int creditsPerMinute, long credits, LocalDate day) {
}
