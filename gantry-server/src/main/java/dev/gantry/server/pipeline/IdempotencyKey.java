package dev.gantry.server.pipeline;

import dev.gantry.server.http.ApiException;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A client's {@code Idempotency-Key}: repeating a trigger with the same key for the same project returns the pipeline
 * the first one made instead of making another, so a client may retry a trigger whose answer it never got.
 *
 * @param value 1-255 printable ASCII characters
 */
record IdempotencyKey(String value) {
    static final String HEADER = "Idempotency-Key";

    private static final Pattern VALUE = Pattern.compile("[\\x20-\\x7E]{1,255}");

    IdempotencyKey {
        if (value == null || !VALUE.matcher(value).matches()) {
            throw new IllegalArgumentException(HEADER + " must be 1-255 printable ASCII characters");
        }
    }

    /**
     * The key in a request's header, if it has one.
     *
     * @throws ApiException 400 naming the header when its value breaks the rule
     */
    static Optional<IdempotencyKey> fromHeader(String header) {
        if (header == null) {
            return Optional.empty();
        }
        if (!VALUE.matcher(header).matches()) {
            throw ApiException.invalid(HEADER, HEADER + " must be 1-255 printable ASCII characters");
        }
        return Optional.of(new IdempotencyKey(header));
    }
}
