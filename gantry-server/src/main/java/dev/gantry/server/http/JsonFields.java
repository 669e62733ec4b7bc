package dev.gantry.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Typed access to the fields of a JSON request object, where every problem is a 400 naming its field. A field set to
 * {@code null} counts as absent. Fields the route does not know are refused, so that a misspelt optional field
 * ({@code "brnach"}) is reported instead of silently ignored.
 */
public final class JsonFields {
    private final ObjectNode object;

    private JsonFields(ObjectNode object) {
        this.object = object;
    }

    /**
     * The fields of {@code object}, which may have only the {@code known} ones.
     *
     * @throws ApiException 400 naming the first unknown field
     */
    public static JsonFields of(ObjectNode object, Set<String> known) {
        Objects.requireNonNull(object, "object");
        for (Map.Entry<String, JsonNode> field : object.properties()) {
            String name = field.getKey();
            if (!known.contains(name)) {
                throw ApiException.invalid(name, "unknown field " + ApiException.quote(name) + "; the fields are "
                        + String.join(", ", new TreeSet<>(known)));
            }
        }
        return new JsonFields(object);
    }

    /** The string field {@code name}. */
    public String requiredString(String name) {
        return optionalString(name).orElseThrow(() -> ApiException.invalid(name, "\"" + name + "\" is required"));
    }

    /** The string field {@code name}, if it is there. */
    public Optional<String> optionalString(String name) {
        return present(name).map(value -> {
            if (!value.isTextual()) {
                throw ApiException.invalid(name, "\"" + name + "\" must be a string");
            }
            return value.textValue();
        });
    }

    /** The boolean field {@code name}, if it is there. */
    public Optional<Boolean> optionalBoolean(String name) {
        return present(name).map(value -> {
            if (!value.isBoolean()) {
                throw ApiException.invalid(name, "\"" + name + "\" must be true or false");
            }
            return value.booleanValue();
        });
    }

    /** The field {@code name}, an array of strings, if it is there. */
    public Optional<List<String>> optionalStrings(String name) {
        return present(name).map(value -> {
            if (!value.isArray()) {
                throw ApiException.invalid(name, "\"" + name + "\" must be an array of strings");
            }
            List<String> strings = new ArrayList<>();
            for (JsonNode item : value) {
                if (!item.isTextual()) {
                    throw ApiException.invalid(name, "\"" + name + "\" must be an array of strings");
                }
                strings.add(item.textValue());
            }
            return List.copyOf(strings);
        });
    }

    /** The object field {@code name}, if it is there. */
    public Optional<ObjectNode> optionalObject(String name) {
        return present(name).map(value -> {
            if (!(value instanceof ObjectNode nested)) {
                throw ApiException.invalid(name, "\"" + name + "\" must be an object");
            }
            return nested;
        });
    }

    private Optional<JsonNode> present(String name) {
        JsonNode value = object.get(name);
        return value == null || value.isNull() ? Optional.empty() : Optional.of(value);
    }
}
