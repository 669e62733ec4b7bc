package dev.gantry.queue;

/** The root of the queue's runtime failures. Each subclass names what went wrong and what to do. */
public class QueueException extends RuntimeException {
    public QueueException(String message, Throwable cause) {
        super(message, cause);
    }

    public QueueException(String message) {
        super(message);
    }
}
