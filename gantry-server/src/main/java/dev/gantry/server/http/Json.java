package dev.gantry.server.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.javalin.http.Context;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The API's JSON conventions in one place: properties in snake_case as CircleCI's API v2 names them (a record
 * component {@code createdAt} is written {@code created_at}), map keys sorted, times as ISO-8601 UTC with
 * milliseconds. Reading is strict: a duplicate key or anything after the top-level value is an error.
 *
 * <p>Thread-safe: the mapper is configured once and only used afterwards.
 */
public final class Json {
    /** The shared mapper; do not reconfigure it. */
    public static final ObjectMapper MAPPER = JsonMapper.builder()
            .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
            .build();

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'")
            .withZone(ZoneOffset.UTC);

    private Json() {
    }

    /** {@code 2026-11-30T10:15:00.123Z}: always UTC, always milliseconds. */
    public static String time(Instant instant) {
        return TIME.format(instant);
    }

    /**
     * CircleCI's list shape for a list that is never paged: {@code {"items": [...], "next_page_token": null}}
     * (a map, as the token is null).
     */
    public static Map<String, Object> whole(List<?> items) {
        Map<String, Object> page = new LinkedHashMap<>();
        page.put("items", items);
        page.put("next_page_token", null);
        return page;
    }

    /** Answers {@code status} with {@code body} as JSON. */
    public static void respond(Context ctx, int status, Object body) {
        ctx.status(status).contentType("application/json").result(write(body));
    }

    /** {@code value} as JSON text. */
    public static String write(Object value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            // Only the server's own records and maps get here; one that cannot be written is a bug.
            throw new IllegalStateException("cannot write " + value.getClass().getName() + " as JSON", e);
        }
    }
}
