package dev.gantry.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gantry.server.http.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * The response schemas of an OpenAPI 3 document, and a small checker of JSON values against them: {@code $ref}
 * (within the document), {@code type}, {@code enum}, {@code required}, {@code properties}, {@code items},
 * {@code additionalProperties} (a schema), {@code anyOf}/{@code oneOf}/{@code allOf}, the {@code uuid} and
 * {@code date-time} formats, and null only where {@code nullable} or {@code x-nullable} allows it. Properties the
 * schema does not name are allowed (Gantry's additions). Not a full validator: what a client relies on.
 */
final class OpenApiSchemas {
    /** The start of a place in a list's item, {@code $.items[]}: a known null named from the top covers it. */
    private static final String LIST_ITEM = "^\\$\\.items\\[]";

    private final JsonNode document;

    private OpenApiSchemas(JsonNode document) {
        this.document = document;
    }

    /** The document in the test resource {@code resource}. */
    static OpenApiSchemas load(String resource) {
        try (InputStream in = OpenApiSchemas.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalArgumentException("no test resource " + resource);
            }
            return new OpenApiSchemas(Json.MAPPER.readTree(in));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The JSON schema of the {@code status} answer of {@code method path} (path as the document spells it). */
    JsonNode response(String method, String path, int status) {
        JsonNode schema = document.path("paths").path(path).path(method.toLowerCase()).path("responses")
                .path(Integer.toString(status)).path("content").path("application/json").path("schema");
        if (schema.isMissingNode()) {
            throw new IllegalArgumentException("the document has no JSON " + status + " answer of " + method + " "
                    + path);
        }
        return schema;
    }

    /**
     * What is wrong with {@code value} under {@code schema}, each problem naming where ({@code $.items[].name}).
     *
     * @param knownNulls the places (as the problems name them) where null is accepted although the schema does not
     *                   say nullable: where CircleCI itself answers null and its document does not say so; a place
     *                   named from the top ({@code $.started_at}) also stands for the same in a list's items
     */
    List<String> problems(JsonNode schema, JsonNode value, Set<String> knownNulls) {
        List<String> problems = new ArrayList<>();
        check(schema, value, "$", knownNulls, problems);
        return problems;
    }

    private JsonNode resolved(JsonNode schema) {
        while (schema.has("$ref")) {
            String ref = schema.get("$ref").asText();
            if (!ref.startsWith("#/")) {
                throw new IllegalArgumentException("only references within the document are supported: " + ref);
            }
            JsonNode target = document.at(ref.substring(1));
            if (target.isMissingNode()) {
                throw new IllegalArgumentException("dangling reference " + ref);
            }
            schema = target;
        }
        return schema;
    }

    private void check(JsonNode schemaOrRef, JsonNode value, String where, Set<String> knownNulls,
                       List<String> problems) {
        JsonNode schema = resolved(schemaOrRef);
        if (value == null || value.isMissingNode()) {
            problems.add(where + ": missing");
            return;
        }
        if (value.isNull()) {
            if (!schema.path("nullable").asBoolean() && !schema.path("x-nullable").asBoolean()
                    && !knownNulls.contains(where) && !knownNulls.contains(where.replaceFirst(LIST_ITEM, "\\$"))) {
                problems.add(where + ": null, but the schema does not allow null");
            }
            return;
        }
        for (String combinator : List.of("anyOf", "oneOf")) {
            if (schema.has(combinator)) {
                boolean any = false;
                for (JsonNode option : schema.get(combinator)) {
                    any |= problems(option, value, knownNulls).isEmpty();
                }
                if (!any) {
                    problems.add(where + ": matches none of " + combinator + ": " + value);
                }
            }
        }
        if (schema.has("allOf")) {
            for (JsonNode part : schema.get("allOf")) {
                check(part, value, where, knownNulls, problems);
            }
        }
        String type = schema.path("type").asText(null);
        if (type != null && !hasType(value, type)) {
            problems.add(where + ": expected " + type + ", got " + value.getNodeType() + " " + value);
            return;
        }
        if (schema.has("enum")) {
            boolean listed = false;
            for (JsonNode allowed : schema.get("enum")) {
                listed |= allowed.equals(value);
            }
            if (!listed) {
                problems.add(where + ": " + value + " is not one of " + schema.get("enum"));
            }
        }
        String format = schema.path("format").asText("");
        if (value.isTextual() && !validFormat(format, value.textValue())) {
            problems.add(where + ": '" + value.textValue() + "' is not a " + format);
        }
        if (value.isObject()) {
            for (JsonNode required : schema.path("required")) {
                if (!value.has(required.asText())) {
                    problems.add(where + "." + required.asText() + ": required, missing");
                }
            }
            JsonNode properties = schema.path("properties");
            for (Iterator<Map.Entry<String, JsonNode>> it = value.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> field = it.next();
                String at = where + "." + field.getKey();
                if (properties.has(field.getKey())) {
                    check(properties.get(field.getKey()), field.getValue(), at, knownNulls, problems);
                } else if (schema.path("additionalProperties").isObject()) {
                    check(schema.get("additionalProperties"), field.getValue(), at, knownNulls, problems);
                }
            }
        }
        if (value.isArray() && schema.has("items")) {
            for (JsonNode item : value) {
                check(schema.get("items"), item, where + "[]", knownNulls, problems);
            }
        }
    }

    private static boolean hasType(JsonNode value, String type) {
        return switch (type) {
            case "object" -> value.isObject();
            case "array" -> value.isArray();
            case "string" -> value.isTextual();
            case "integer" -> value.isIntegralNumber();
            case "number" -> value.isNumber();
            case "boolean" -> value.isBoolean();
            default -> throw new IllegalArgumentException("unknown schema type " + type);
        };
    }

    private static boolean validFormat(String format, String text) {
        try {
            switch (format) {
                case "uuid" -> UUID.fromString(text);
                case "date-time" -> OffsetDateTime.parse(text);
                default -> {
                    // other formats (int64, uri, ...) are not checked on strings
                }
            }
            return true;
        } catch (IllegalArgumentException | DateTimeParseException e) {
            return false;
        }
    }
}
