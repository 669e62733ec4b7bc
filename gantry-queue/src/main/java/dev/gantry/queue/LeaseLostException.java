package dev.gantry.queue;

/**
 * A worker tried to complete, fail or extend a message it no longer holds: its lease expired and the message was
 * rescued (and perhaps claimed again with a higher attempt), or it was already finished. The worker must drop its
 * result; whoever holds the current attempt decides the outcome.
 */
public final class LeaseLostException extends QueueException {
    public LeaseLostException(long id, int attempt) {
        super("message " + id + " is no longer held at attempt " + attempt
                + ": its lease expired and it was rescued, or it was already finished");
    }
}
