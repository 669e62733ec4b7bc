package dev.gantry.agent.protocol;

import java.time.Instant;

/**
 * One step's state, sent as an upsert when it starts ({@code running}) and when it ends.
 *
 * @param exitCode     null unless the step ran a process that exited
 * @param outputOffset where the step's part of the node's output stream begins
 * @param stoppedAt    null while running
 */
public record StepReport(String name, StepStatus status, Integer exitCode, long outputOffset, Instant startedAt,
                         Instant stoppedAt) {
}
