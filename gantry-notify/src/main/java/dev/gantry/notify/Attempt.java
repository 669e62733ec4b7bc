package dev.gantry.notify;

import java.time.Duration;
import java.time.Instant;

/**
 * The outcome of one send: when it started, how long it took, the answer's status code (null when none came), and
 * the error (null when the destination answered 2xx). A failure that another attempt cannot cure (a destination on a
 * forbidden address) is not {@code retryable}. Immutable.
 */
public record Attempt(Instant startedAt, Duration took, Integer statusCode, String error, boolean retryable) {

    public static Attempt answered(Instant startedAt, Duration took, int statusCode) {
        boolean ok = statusCode >= 200 && statusCode < 300;
        return new Attempt(startedAt, took, statusCode, ok ? null : "answered HTTP " + statusCode, true);
    }

    public static Attempt failed(Instant startedAt, Duration took, String error, boolean retryable) {
        return new Attempt(startedAt, took, null, error, retryable);
    }

    public boolean delivered() {
        return error == null;
    }
}
