package dev.gantry.server.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gantry.server.http.ApiException;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * Reads the parts of an agent's request: the task in the path, the lease header, typed JSON fields (each problem a
 * 400 naming its field) and upload bodies within {@link #MAX_UPLOAD_BYTES}. Unknown JSON fields are ignored, unlike
 * on {@code /api/v2}: a newer agent may send fields an older server does not know. Stateless.
 */
final class AgentRequests {
    /** The header that carries a task's lease. */
    static final String LEASE_HEADER = "Gantry-Lease";
    /**
     * 5 GiB: the most an upload (cache, workspace layer, artifact, output chunk) may hold; beyond it, 413. Uploads
     * are streamed to storage (files, or a bucket one part at a time), so the limit guards the disk, not the heap.
     */
    static final long MAX_UPLOAD_BYTES = 5L << 30;

    private static final Pattern UUID_TEXT = Pattern.compile(
            "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");

    private AgentRequests() {
    }

    /** The task {@code {job_id}/{node_index}} in the path names; an id that cannot be one is a 404. */
    static TaskKey task(Context ctx) {
        String job = ctx.pathParam("job_id");
        String node = ctx.pathParam("node_index");
        if (!UUID_TEXT.matcher(job).matches() || !node.matches("\\d{1,9}")) {
            throw ApiException.notFound("no task " + ApiException.quote(job + "/" + node));
        }
        return new TaskKey(UUID.fromString(job), Integer.parseInt(node));
    }

    /** The UUID in path parameter {@code name}; anything else is a 404. */
    static UUID pathId(Context ctx, String name, String what) {
        String text = ctx.pathParam(name);
        if (!UUID_TEXT.matcher(text).matches()) {
            throw ApiException.notFound("no " + what + " " + ApiException.quote(text));
        }
        return UUID.fromString(text);
    }

    /** The lease in {@link #LEASE_HEADER}; missing or not a UUID is a 400. */
    static UUID lease(Context ctx) {
        String text = ctx.header(LEASE_HEADER);
        if (text == null || !UUID_TEXT.matcher(text.strip()).matches()) {
            throw ApiException.invalid(LEASE_HEADER, "send the task's lease from the claim as '" + LEASE_HEADER
                    + ": <uuid>'" + (text == null ? "" : ", not " + ApiException.quote(text)));
        }
        return UUID.fromString(text.strip());
    }

    /**
     * The request body to stream to storage, cut off with a 413 past {@link #MAX_UPLOAD_BYTES} (refused from its
     * {@code Content-Length} before a byte is read). Javalin's {@code maxRequestSize} caps only the bodies it reads
     * into memory ({@code ctx.body()}), so it does not apply here.
     */
    static InputStream upload(Context ctx) {
        long declared = ctx.req().getContentLengthLong();
        if (declared > MAX_UPLOAD_BYTES) {
            throw tooLarge();
        }
        try {
            return new LimitedInputStream(ctx.req().getInputStream(), MAX_UPLOAD_BYTES, AgentRequests::tooLarge);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static ApiException tooLarge() {
        return ApiException.tooLarge("the upload is larger than the limit of " + MAX_UPLOAD_BYTES + " bytes (5 GiB)");
    }

    static String string(ObjectNode body, String name) {
        return optionalString(body, name).orElseThrow(() -> required(name));
    }

    static Optional<String> optionalString(ObjectNode body, String name) {
        return present(body, name).map(value -> {
            if (!value.isTextual()) {
                throw ApiException.invalid(name, "\"" + name + "\" must be a string");
            }
            return value.textValue();
        });
    }

    static long integer(ObjectNode body, String name, long min, long max) {
        return optionalInteger(body, name, min, max).orElseThrow(() -> required(name));
    }

    static Optional<Long> optionalInteger(ObjectNode body, String name, long min, long max) {
        return present(body, name).map(value -> {
            if (!value.isIntegralNumber() || !value.canConvertToLong() || value.longValue() < min
                    || value.longValue() > max) {
                throw ApiException.invalid(name, "\"" + name + "\" must be an integer from " + min + " to " + max);
            }
            return value.longValue();
        });
    }

    /** A number of seconds, {@code absent} when the field is missing. */
    static double seconds(ObjectNode body, String name, double absent) {
        Optional<JsonNode> present = present(body, name);
        if (present.isEmpty()) {
            return absent;
        }
        JsonNode value = present.get();
        if (!value.isNumber() || !Double.isFinite(value.doubleValue()) || value.doubleValue() < 0) {
            throw ApiException.invalid(name, "\"" + name + "\" must be a number of seconds >= 0");
        }
        return value.doubleValue();
    }

    static Optional<Instant> optionalTime(ObjectNode body, String name) {
        return optionalString(body, name).map(text -> {
            try {
                return Instant.parse(text);
            } catch (DateTimeParseException e) {
                throw ApiException.invalid(name, "\"" + name + "\" must be an ISO-8601 UTC time like "
                        + "2026-11-30T10:15:00.123Z, got " + ApiException.quote(text));
            }
        });
    }

    /** {@code text} for a text column: PostgreSQL cannot store NUL characters. */
    static String noNul(String name, String text) {
        if (text != null && text.indexOf('\0') >= 0) {
            throw ApiException.invalid(name, "\"" + name + "\" must not contain NUL characters");
        }
        return text;
    }

    private static Optional<JsonNode> present(ObjectNode body, String name) {
        JsonNode value = body.get(name);
        return value == null || value.isNull() ? Optional.empty() : Optional.of(value);
    }

    private static ApiException required(String name) {
        return ApiException.invalid(name, "\"" + name + "\" is required");
    }
}
