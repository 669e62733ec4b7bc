package dev.gantry.server.results;

import dev.gantry.server.http.ApiException;
import dev.gantry.server.http.PageToken;
import io.javalin.http.Context;
import java.util.List;
import java.util.Optional;

/**
 * Keyset pages for a job's artifacts and test results: {@link #SIZE} items, each page starting after the (node, key)
 * of the last item of the previous one, so results added meanwhile shift nothing. The position a token carries is
 * checked like any client input.
 */
final class ResultPages {
    /** Larger than the API's usual 20: a job can have thousands of test results. */
    static final int SIZE = 100;

    private ResultPages() {
    }

    /** Where the requested page starts: (node, key), or (-1, {@code first}) for the first page. */
    record Position(int node, String key) {
        /** The key as the number it is for lists keyed by a sequence number. */
        int numericKey() {
            try {
                return Integer.parseInt(key);
            } catch (NumberFormatException e) {
                throw notOurs();
            }
        }
    }

    static Position requested(Context ctx, String first) {
        String token = ctx.queryParam(PageToken.PARAMETER);
        if (token == null || token.isBlank()) {
            return new Position(-1, first);
        }
        List<String> position = PageToken.decode(token, 2).position();
        try {
            return new Position(Integer.parseInt(position.get(0)), position.get(1));
        } catch (NumberFormatException e) {
            throw notOurs();
        }
    }

    private static ApiException notOurs() {
        return ApiException.invalid(PageToken.PARAMETER, "\"" + PageToken.PARAMETER + "\" does not point into this "
                + "list; use the next_page_token of the previous page");
    }

    /** The token for the page after {@code page}, if there may be one (the page is full). */
    static Optional<String> next(List<?> page, int lastNode, String lastKey) {
        return page.size() < SIZE ? Optional.empty()
                : Optional.of(PageToken.after(Integer.toString(lastNode), lastKey).encode());
    }
}
