package dev.gantry.server.http;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.Locale;

/**
 * Reads a request body that must be a JSON object, checking in order: the content type (415), the size (413, at
 * most {@link #MAX_BYTES}), that it is JSON (400, with the line and column of the first error) and that it is an
 * object (400). A body larger than the limit is refused from its {@code Content-Length} before a byte is read, and a
 * body without one is read no further than one byte past the limit.
 */
public final class JsonBody {
    /** 1 MiB: far above any request the API takes, and small enough that a body costs no worry. */
    public static final int MAX_BYTES = 1 << 20;
    /** The largest refused body still read to its end before the 413 goes out. */
    static final int DRAINED_AT_MOST = 16 << 20;

    private JsonBody() {
    }

    /** The request's body as a JSON object, or an {@link ApiException} saying what to send instead. */
    public static ObjectNode readObject(Context ctx) {
        ObjectNode read = ctx.attribute(READ);
        if (read != null) { // a route's access rule read it first: the stream can be read once
            return read;
        }
        requireJsonContentType(ctx.header("Content-Type"));
        long declared = ctx.req().getContentLengthLong();
        if (declared > MAX_BYTES) {
            drainModestExcess(ctx, declared);
            throw tooLarge(declared + " bytes");
        }
        ObjectNode body = parseObject(readAtMostLimit(ctx));
        ctx.attribute(READ, body);
        return body;
    }

    private static final String READ = "gantry.json-body";

    /**
     * As {@link #readObject}, but a request without a body ({@code Content-Length: 0}, whatever its content type, as
     * {@code curl -X POST} sends) is an empty object: for calls where every field is optional.
     */
    public static ObjectNode readObjectOrEmpty(Context ctx) {
        return ctx.req().getContentLengthLong() == 0 ? Json.MAPPER.createObjectNode() : readObject(ctx);
    }

    /** Parses {@code body}; the checks after the content type and size. */
    static ObjectNode parseObject(byte[] body) {
        if (body.length == 0) {
            throw ApiException.badRequest("the request body is empty; send a JSON object");
        }
        JsonNode node;
        try {
            node = Json.MAPPER.readTree(body);
        } catch (JsonProcessingException e) {
            JsonLocation at = e.getLocation();
            String where = at == null ? "" : " at line " + at.getLineNr() + ", column " + at.getColumnNr();
            throw ApiException.badRequest("the request body is not valid JSON" + where + ": " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (!(node instanceof ObjectNode object)) {
            throw ApiException.badRequest("the request body must be a JSON object, got " + describe(node));
        }
        return object;
    }

    /** Accepts {@code application/json} and {@code application/<something>+json}, with any parameters. */
    static void requireJsonContentType(String header) {
        String mediaType = header == null ? "" : header.split(";", 2)[0].strip().toLowerCase(Locale.ROOT);
        if (!mediaType.equals("application/json")
                && !(mediaType.startsWith("application/") && mediaType.endsWith("+json"))) {
            throw ApiException.unsupportedMediaType("send the request body as JSON with 'Content-Type: "
                    + "application/json'" + (header == null ? "; the request had no Content-Type"
                    : ", not '" + header + "'"));
        }
    }

    private static byte[] readAtMostLimit(Context ctx) {
        try (InputStream in = ctx.req().getInputStream()) {
            byte[] body = in.readNBytes(MAX_BYTES + 1);
            if (body.length > MAX_BYTES) {
                throw tooLarge("more than " + MAX_BYTES + " bytes");
            }
            return body;
        } catch (IOException e) {
            // The client went away or sent a broken chunked body; there is nobody left to answer.
            throw ApiException.badRequest("the request body could not be read: " + e.getMessage());
        }
    }

    /**
     * Reads and drops a body that is too large but not absurdly so (up to {@link #DRAINED_AT_MOST}), so the client,
     * still sending it, reads the 413 rather than a connection reset; a larger one is cut off unread.
     */
    private static void drainModestExcess(Context ctx, long declared) {
        if (declared > DRAINED_AT_MOST) {
            return;
        }
        try (InputStream in = ctx.req().getInputStream()) {
            in.transferTo(OutputStream.nullOutputStream());
        } catch (IOException e) {
            // the client gave up sending; the 413 goes out anyway
        }
    }

    private static ApiException tooLarge(String size) {
        return ApiException.tooLarge("the request body is " + size + "; the limit is " + MAX_BYTES + " bytes (1 MiB)");
    }

    private static String describe(JsonNode node) {
        return switch (node.getNodeType()) {
            case ARRAY -> "an array";
            case STRING -> "a string";
            case NUMBER -> "a number";
            case BOOLEAN -> "a boolean";
            case NULL -> "null";
            default -> node.getNodeType().name().toLowerCase(Locale.ROOT);
        };
    }
}
