package dev.gantry.server.http;

import dev.gantry.queue.QueueUnavailableException;
import dev.gantry.queue.SqlStates;
import java.time.Duration;
import java.util.Optional;

/**
 * Decides, in one place for the server, whether a failure means "the database cannot take this now, try later"
 * (503 with {@code Retry-After}) rather than a bug (500), by {@link SqlStates}'s rule, the one gantry-queue
 * uses too, so that the server's own statements and the queue's answer alike; and a request's lock wait that ran out
 * ({@link RequestLocks}).
 */
public final class DatabaseFailures {
    /** How long a client should wait when the failure itself does not say. */
    public static final Duration DEFAULT_RETRY_AFTER = Duration.ofSeconds(5);

    private DatabaseFailures() {
    }

    /** How long to wait before retrying, when {@code failure} is the database being unavailable; else empty. */
    public static Optional<Duration> retryAfter(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof QueueUnavailableException queue) {
                return Optional.of(queue.retryAfter());
            }
        }
        if (RequestLocks.timedOut(failure)) { // a lock another transaction holds: it may be free by then
            return Optional.of(RequestLocks.RETRY_AFTER);
        }
        if (SqlStates.unavailable(failure)) {
            return Optional.of(DEFAULT_RETRY_AFTER);
        }
        return Optional.empty();
    }
}
