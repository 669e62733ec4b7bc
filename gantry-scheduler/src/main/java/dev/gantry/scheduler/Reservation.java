package dev.gantry.scheduler;

import java.time.Instant;
import java.util.Optional;

/**
 * Instance {@code instanceId} is held for job {@code jobId}, the oldest job in its pool that fits nowhere now, from
 * {@code start} on. Younger jobs may use the instance only if they are expected to end by then.
 *
 * @param start when enough of the instance is expected to be free, or empty when some job it waits for has no
 *              expected end (then nothing is backfilled onto it)
 */
public record Reservation(String jobId, String instanceId, Optional<Instant> start) {
}
