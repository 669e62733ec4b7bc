package dev.gantry.queue;

/**
 * The result of an enqueue: the message's id, and whether this call created it ({@code false} when a message with
 * the same unique key already existed, whose id this is).
 */
public record Enqueued(long id, boolean created) {
}
