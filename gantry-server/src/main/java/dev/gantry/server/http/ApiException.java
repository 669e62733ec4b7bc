package dev.gantry.server.http;

import dev.gantry.server.ServerException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * A request the API refuses, with the status and the message the client gets as {@code {"message": ...}}; for a bad
 * field or header also its name, as {@code "field"}. Routes and the services behind them throw it;
 * {@link ErrorResponses} writes it. Its message is for the client, so it never holds SQL text or a secret.
 */
public final class ApiException extends ServerException {
    /** The most characters of a client's value that a message repeats. */
    public static final int MAX_QUOTED = 100;

    private final int status;
    private final String field;
    private final Duration retryAfter;

    private ApiException(int status, String field, String message) {
        this(status, field, message, null);
    }

    private ApiException(int status, String field, String message, Duration retryAfter) {
        super(Objects.requireNonNull(message, "message"));
        this.status = status;
        this.field = field;
        this.retryAfter = retryAfter;
    }

    /** 400: {@code field} (a body field, header or query parameter) is missing or has a value the API cannot use. */
    public static ApiException invalid(String field, String message) {
        return new ApiException(400, Objects.requireNonNull(field, "field"), message);
    }

    /** 400: the request as a whole is unusable, e.g. its body is not JSON. */
    public static ApiException badRequest(String message) {
        return new ApiException(400, null, message);
    }

    /** 401: no usable credentials. */
    public static ApiException unauthorized(String message) {
        return new ApiException(401, null, message);
    }

    /** 403: the caller is known but may not do this. */
    public static ApiException forbidden(String message) {
        return new ApiException(403, null, message);
    }

    /** 404: no such route or resource. */
    public static ApiException notFound(String message) {
        return new ApiException(404, null, message);
    }

    /** 409: the request contradicts what exists, e.g. a duplicate slug. */
    public static ApiException conflict(String message) {
        return new ApiException(409, null, message);
    }

    /** 410: the resource existed and is gone for good, e.g. deleted past its retention. */
    public static ApiException gone(String message) {
        return new ApiException(410, null, message);
    }

    /** 413: the body is larger than the API reads. */
    public static ApiException tooLarge(String message) {
        return new ApiException(413, null, message);
    }

    /** 415: the body is not in a format the route reads. */
    public static ApiException unsupportedMediaType(String message) {
        return new ApiException(415, null, message);
    }

    /** 429: the caller sent more than its rate limit allows; it may send again after {@code retryAfter}. */
    public static ApiException tooManyRequests(String message, Duration retryAfter) {
        return new ApiException(429, null, message, Objects.requireNonNull(retryAfter, "retryAfter"));
    }

    /** 503: the server cannot take this request now (it is overloaded); a retry after {@code retryAfter} may. */
    public static ApiException unavailable(String message, Duration retryAfter) {
        return new ApiException(503, null, message, Objects.requireNonNull(retryAfter, "retryAfter"));
    }

    /** 503: something the request needs, outside the database, cannot be reached now; a retry may succeed. */
    public static ApiException unavailable(String message) {
        return new ApiException(503, null, message);
    }

    /** How long the client should wait before sending again ({@code Retry-After}), when the answer says. */
    public Optional<Duration> retryAfter() {
        return Optional.ofNullable(retryAfter);
    }

    /**
     * {@code value} in single quotes for a message, cut to {@value #MAX_QUOTED} characters: an error should say what
     * it refused without echoing a megabyte back.
     */
    public static String quote(String value) {
        return "'" + (value.length() <= MAX_QUOTED ? value : value.substring(0, MAX_QUOTED) + "…") + "'";
    }

    public int status() {
        return status;
    }

    /** The field, header or query parameter at fault, if one is. */
    public Optional<String> field() {
        return Optional.ofNullable(field);
    }
}
