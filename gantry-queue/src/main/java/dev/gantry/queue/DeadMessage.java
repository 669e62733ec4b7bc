package dev.gantry.queue;

import java.time.Instant;

/**
 * A dead-lettered message: it failed fatally, or on its last attempt, or its last lease ran out. {@code reason} is
 * the last failure as recorded; {@link Queues#replay} puts the message back to ready.
 */
public record DeadMessage(long id, String queue, String payload, int attempts, String reason, Instant diedAt) {
}
