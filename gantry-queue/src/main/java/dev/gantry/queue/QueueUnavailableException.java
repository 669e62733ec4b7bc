package dev.gantry.queue;

import java.time.Duration;

/**
 * The database cannot take the operation now: unreachable, shutting down, read-only, or out of connections. Callers
 * answer "503, retry after {@link #retryAfter()}" rather than retrying in a loop. Nothing was written, unless the
 * connection dropped during the commit itself, when nobody can tell: retry with the same unique key.
 */
public final class QueueUnavailableException extends QueueException {
    private final Duration retryAfter;

    public QueueUnavailableException(String message, Duration retryAfter, Throwable cause) {
        super(message, cause);
        this.retryAfter = retryAfter;
    }

    /** How long a caller should wait before trying again. */
    public Duration retryAfter() {
        return retryAfter;
    }
}
