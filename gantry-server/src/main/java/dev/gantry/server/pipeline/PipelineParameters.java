package dev.gantry.server.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gantry.server.http.ApiException;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The one check of pipeline parameters, wherever they come in: a trigger's {@code parameters}, a schedule's (through
 * the trigger it makes) and a continuation's. Parameters are scalars, as in CircleCI: at most {@value #MAX_COUNT},
 * each named by a letter and up to {@value #MAX_NAME_LENGTH} characters in all of letters, digits, {@code _} and
 * {@code -}, each a string of at most {@value #MAX_STRING_BYTES} bytes of UTF-8, a finite number or a boolean. A
 * number beyond a 64-bit float's range (JSON's {@code 1e400}, which the parser reads as infinity) is refused rather
 * than stored as something else. Each refusal is a 400 naming the parameter. Pure.
 */
public final class PipelineParameters {
    /** The most parameters a pipeline takes. */
    public static final int MAX_COUNT = 100;
    /** The longest parameter name. */
    public static final int MAX_NAME_LENGTH = 100;
    /** The largest string value, in bytes of UTF-8: 64 KiB. */
    public static final int MAX_STRING_BYTES = 64 * 1024;

    private static final Pattern NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_-]{0," + (MAX_NAME_LENGTH - 1) + "}");

    private PipelineParameters() {
    }

    /**
     * The parameters in {@code object}, sorted by name.
     *
     * @param field the request field they are in, e.g. {@code parameters}; a refusal names {@code field.NAME}
     * @throws ApiException 400 naming the field or the parameter at fault
     */
    public static SortedMap<String, Object> checked(ObjectNode object, String field) {
        if (object.size() > MAX_COUNT) {
            throw ApiException.invalid(field, "\"" + field + "\" has " + object.size() + " parameters; a pipeline "
                    + "takes at most " + MAX_COUNT);
        }
        SortedMap<String, Object> parameters = new TreeMap<>();
        for (Map.Entry<String, JsonNode> entry : object.properties()) {
            String name = entry.getKey();
            JsonNode value = entry.getValue();
            String at = field + "." + (name.length() <= MAX_NAME_LENGTH ? name
                    : name.substring(0, MAX_NAME_LENGTH) + "…");
            if (!NAME.matcher(name).matches()) {
                throw ApiException.invalid(at, "parameter names are a letter, then up to " + (MAX_NAME_LENGTH - 1)
                        + " letters, digits, '_' or '-'; got " + ApiException.quote(name)
                        + (name.length() > MAX_NAME_LENGTH ? " (" + name.length() + " characters)" : ""));
            }
            parameters.put(name, value(at, name, value));
        }
        return Collections.unmodifiableSortedMap(parameters);
    }

    private static Object value(String at, String name, JsonNode value) {
        if (value.isTextual()) {
            String text = value.textValue();
            // at most 3 bytes a char: only a string that may be too large is encoded to find out
            int bytes = text.length() * 3L <= MAX_STRING_BYTES ? text.length()
                    : text.getBytes(StandardCharsets.UTF_8).length;
            if (bytes > MAX_STRING_BYTES) {
                throw ApiException.invalid(at, "parameter \"" + name + "\" is " + bytes + " bytes; a string "
                        + "parameter is at most " + MAX_STRING_BYTES + " bytes (64 KiB)");
            }
            return text;
        }
        if (value.isNumber()) {
            if (value.isFloatingPointNumber() && !Double.isFinite(value.doubleValue())) {
                throw ApiException.invalid(at, "parameter \"" + name + "\" is a number beyond the range of a 64-bit "
                        + "float (about ±1.8e308); send a finite number, or a string");
            }
            return value.numberValue();
        }
        if (value.isBoolean()) {
            return value.booleanValue();
        }
        throw ApiException.invalid(at, "parameter \"" + name + "\" must be a string, number or boolean, not "
                + (value.isObject() ? "an object" : value.isArray() ? "an array" : "null")
                + "; pipeline parameters are not nested");
    }
}
