package dev.gantry.server.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Objects;

/**
 * Where the next page of a list starts: the sort key of the last item of the previous page (keyset pagination), so a
 * page costs one index range scan however deep it is, and items added meanwhile shift nothing. Clients see only
 * {@link #encode()}'s opaque text, in {@code next_page_token} and back in {@code ?page-token=}.
 *
 * @param position the sort key, one string per key column
 */
public record PageToken(List<String> position) {
    /** The query parameter that carries a token back. */
    public static final String PARAMETER = "page-token";
    /** How many items a page holds. */
    public static final int PAGE_SIZE = 20;

    private static final TypeReference<List<String>> STRINGS = new TypeReference<>() {
    };

    public PageToken {
        position = List.copyOf(position);
        if (position.isEmpty()) {
            throw new IllegalArgumentException("a page token needs a position");
        }
    }

    public static PageToken after(String... position) {
        return new PageToken(List.of(position));
    }

    /** The token as clients see it: URL-safe base64 of the position as a JSON array. */
    public String encode() {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(Json.write(position)
                .getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Reads a token that {@link #encode()} wrote and checks that it has {@code size} key columns.
     *
     * @throws ApiException 400 naming {@link #PARAMETER} for anything else
     */
    public static PageToken decode(String text, int size) {
        Objects.requireNonNull(text, "text");
        try {
            List<String> position = Json.MAPPER.readValue(Base64.getUrlDecoder().decode(text), STRINGS);
            if (position != null && position.size() == size && !position.contains(null)) {
                return new PageToken(position);
            }
        } catch (IllegalArgumentException | JsonProcessingException notOurs) {
            // reported below
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        throw ApiException.invalid(PARAMETER, "\"" + PARAMETER + "\" is not a token this list handed out; use the "
                + "next_page_token of the previous page, or leave it out for the first page");
    }
}
