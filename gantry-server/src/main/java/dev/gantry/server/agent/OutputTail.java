package dev.gantry.server.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gantry.server.http.ApiException;
import java.io.IOException;
import java.util.Optional;

/**
 * The end of a node's output that a completion carries: {@code "output": {"offset": N, "data": BASE64}}, appended
 * from byte N on as an output call would append it.
 */
record OutputTail(long offset, byte[] bytes) {
    /** The most a completion may carry; more goes through output calls first. */
    static final int MAX_BYTES = 64 * 1024;

    static Optional<OutputTail> read(ObjectNode body) {
        JsonNode node = body.get("output");
        if (node == null || node.isNull()) {
            return Optional.empty();
        }
        if (!(node instanceof ObjectNode output) || !output.path("data").isTextual()) {
            throw ApiException.invalid("output", "\"output\" must be {\"offset\": N, \"data\": BASE64}");
        }
        long offset = AgentRequests.integer(output, "offset", 0, Long.MAX_VALUE);
        byte[] bytes;
        try {
            bytes = output.get("data").binaryValue();
        } catch (IOException | IllegalArgumentException e) {
            throw ApiException.invalid("output", "\"output\".\"data\" must be base64");
        }
        if (bytes.length > MAX_BYTES) {
            throw ApiException.invalid("output", "\"output\" may carry at most " + MAX_BYTES
                    + " bytes; send more through the output call");
        }
        return Optional.of(new OutputTail(offset, bytes));
    }
}
