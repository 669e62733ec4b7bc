package dev.gantry.server.http;

import io.javalin.http.Context;
import java.util.UUID;
import java.util.regex.Pattern;

/** Typed path parameters, where a malformed one is a 400 naming it (an unknown well-formed one is the route's 404). */
public final class PathParams {
    private static final Pattern UUID_TEXT = Pattern.compile(
            "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
    private static final Pattern NUMBER = Pattern.compile("[1-9][0-9]{0,17}");

    private PathParams() {
    }

    /**
     * The path parameter {@code name} as a UUID in its canonical form ({@link UUID#fromString} would also take
     * {@code 1-1-1-1-1}).
     *
     * @throws ApiException 400 naming the parameter
     */
    public static UUID uuid(Context ctx, String name) {
        String text = ctx.pathParam(name);
        if (!UUID_TEXT.matcher(text).matches()) {
            throw ApiException.invalid(name, "\"" + name + "\" must be a UUID like "
                    + "5034460f-c7c4-4c43-9457-de07e2029e7b, got " + ApiException.quote(text));
        }
        return UUID.fromString(text);
    }

    /**
     * The path parameter {@code name} as a positive whole number.
     *
     * @throws ApiException 400 naming the parameter
     */
    public static long positiveNumber(Context ctx, String name) {
        String text = ctx.pathParam(name);
        if (!NUMBER.matcher(text).matches()) {
            throw ApiException.invalid(name, "\"" + name + "\" must be a positive whole number, got "
                    + ApiException.quote(text));
        }
        return Long.parseLong(text);
    }
}
