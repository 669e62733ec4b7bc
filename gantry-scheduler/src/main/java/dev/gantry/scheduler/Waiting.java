package dev.gantry.scheduler;

import java.time.Instant;
import java.util.Optional;

/**
 * A job the decision left pending, why, and when it could start if nothing else changes.
 *
 * @param estimatedStart empty when it cannot be computed (running jobs of unknown length, no instance big enough)
 * @param message        the same in words, with the numbers an operator needs
 */
public record Waiting(String jobId, WaitReason reason, Optional<Instant> estimatedStart, String message) {
}
