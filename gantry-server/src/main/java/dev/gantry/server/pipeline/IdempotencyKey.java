package dev.gantry.server.pipeline;

import dev.gantry.server.http.ApiException;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A client's {@code Idempotency-Key}: repeating a trigger with the same key for the same project returns the pipeline
 * the first one made instead of making another, so a client may retry a trigger whose answer it never got (and an
 * agent's registration likewise returns the agent the first one made).
 *
 * @param value 1-255 printable ASCII characters
 */
public record IdempotencyKey(String value) {
    public static final String HEADER = "Idempotency-Key";

    private static final Pattern VALUE = Pattern.compile("[\\x20-\\x7E]{1,255}");

    public IdempotencyKey {
        if (value == null || !VALUE.matcher(value).matches()) {
            throw new IllegalArgumentException(HEADER + " must be 1-255 printable ASCII characters");
        }
    }

    /**
     * The key in a request's {@code Idempotency-Key} header lines, if it has one. Two or more lines are refused, not
     * one of them picked: a client (or a proxy) that sent two keys meant two different things, and deduplicating on
     * either could return another request's pipeline or make a second one.
     *
     * @throws ApiException 400 naming the header for more than one line, or a value that breaks the rule
     */
    public static Optional<IdempotencyKey> fromHeaders(List<String> lines) {
        if (lines.size() > 1) {
            throw ApiException.invalid(HEADER, "send one " + HEADER + " header, not " + lines.size() + "; a request "
                    + "has at most one key");
        }
        return fromHeader(lines.isEmpty() ? null : lines.getFirst());
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
