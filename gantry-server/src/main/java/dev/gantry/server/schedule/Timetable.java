package dev.gantry.server.schedule;

import com.cronutils.model.Cron;
import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gantry.server.http.ApiException;
import dev.gantry.server.http.Json;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * When a schedule fires, in UTC: CircleCI's timetable ({@code per-hour}, {@code hours-of-day}, {@code days-of-week}
 * or {@code days-of-month}, {@code months}), or a Unix cron expression ({@code cron}, Gantry's addition). Both become a
 * cron expression that cron-utils parses and steps. Immutable.
 *
 * @param json the timetable as the API shows it
 * @param cron the five-field Unix cron expression it stands for
 */
public record Timetable(ObjectNode json, String cron) {
    private static final CronParser PARSER =
            new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.UNIX));
    private static final List<String> DAYS = List.of("SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT");
    private static final List<String> MONTHS = List.of("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP",
            "OCT", "NOV", "DEC");
    private static final Set<String> FIELDS = Set.of("per-hour", "hours-of-day", "days-of-week", "days-of-month",
            "months", "cron");

    /**
     * Reads and checks a timetable from a request.
     *
     * @throws ApiException 400 naming the field at fault
     */
    public static Timetable from(JsonNode node) {
        if (!(node instanceof ObjectNode object)) {
            throw ApiException.invalid("timetable", "\"timetable\" must be an object");
        }
        for (String name : (Iterable<String>) object::fieldNames) {
            if (!FIELDS.contains(name)) {
                throw ApiException.invalid("timetable." + name, "unknown timetable field '" + name + "'; the fields "
                        + "are per-hour, hours-of-day, days-of-week, days-of-month, months, or cron alone");
            }
        }
        if (object.has("cron")) {
            if (object.size() != 1 || !object.get("cron").isTextual()) {
                throw ApiException.invalid("timetable.cron", "a timetable with \"cron\" has only that: a five-field "
                        + "Unix cron expression (UTC), e.g. \"0 3 * * 1-5\"");
            }
            String cron = object.get("cron").asText().strip();
            parse(cron, "timetable.cron");
            return new Timetable(object.deepCopy(), cron);
        }
        int perHour = integer(object, "per-hour", 1, 60).orElseThrow(() -> ApiException.invalid("timetable.per-hour",
                "\"per-hour\" is required: how many times an hour, 1 to 60"));
        List<Integer> hours = integers(object, "hours-of-day", 0, 23);
        if (hours.isEmpty()) {
            throw ApiException.invalid("timetable.hours-of-day", "\"hours-of-day\" is required: hours 0 to 23 (UTC)");
        }
        List<Integer> daysOfWeek = names(object, "days-of-week", DAYS, 0);
        List<Integer> daysOfMonth = integers(object, "days-of-month", 1, 31);
        if (daysOfWeek.isEmpty() == daysOfMonth.isEmpty()) {
            throw ApiException.invalid("timetable.days-of-week", "give exactly one of \"days-of-week\" (MON … SUN) "
                    + "and \"days-of-month\" (1 … 31)");
        }
        List<Integer> months = names(object, "months", MONTHS, 1);
        // per-hour N: N runs an hour, evenly spread from minute 0.
        String minutes = IntStream.range(0, perHour).mapToObj(i -> Integer.toString(i * 60 / perHour))
                .collect(Collectors.joining(","));
        String cron = minutes + " " + list(hours) + " " + (daysOfMonth.isEmpty() ? "*" : list(daysOfMonth)) + " "
                + (months.isEmpty() ? "*" : list(months)) + " " + (daysOfWeek.isEmpty() ? "*" : list(daysOfWeek));
        parse(cron, "timetable");
        return new Timetable(object.deepCopy(), cron);
    }

    /** Re-reads a timetable this class wrote (from the database). */
    static Timetable stored(String json) {
        try {
            return from(Json.MAPPER.readTree(json));
        } catch (java.io.IOException e) {
            throw new IllegalStateException("a stored timetable is not JSON: " + json, e);
        }
    }

    /** The first slot strictly after {@code after}. */
    public Instant next(Instant after) {
        return executions().nextExecution(ZonedDateTime.ofInstant(after, ZoneOffset.UTC))
                .map(ZonedDateTime::toInstant)
                .orElseThrow(() -> new IllegalStateException("timetable '" + cron + "' never fires"));
    }

    /** The slots after {@code after} up to and including {@code until}, oldest first, at most {@code limit}. */
    public List<Instant> slots(Instant after, Instant until, int limit) {
        List<Instant> slots = new ArrayList<>();
        for (Instant slot = next(after); !slot.isAfter(until) && slots.size() < limit; slot = next(slot)) {
            slots.add(slot);
        }
        return slots;
    }

    private ExecutionTime executions() {
        return ExecutionTime.forCron(parse(cron, "timetable"));
    }

    private static Cron parse(String cron, String field) {
        try {
            Cron parsed = PARSER.parse(cron);
            parsed.validate();
            return parsed;
        } catch (IllegalArgumentException e) {
            throw ApiException.invalid(field, "not a Unix cron expression: " + ApiException.quote(cron) + " ("
                    + e.getMessage() + ")");
        }
    }

    private static Optional<Integer> integer(ObjectNode object, String name, int min, int max) {
        JsonNode value = object.get(name);
        if (value == null || value.isNull()) {
            return Optional.empty();
        }
        if (!value.canConvertToInt() || !value.isIntegralNumber() || value.asInt() < min || value.asInt() > max) {
            throw ApiException.invalid("timetable." + name, "\"" + name + "\" must be a whole number from " + min
                    + " to " + max);
        }
        return Optional.of(value.asInt());
    }

    private static List<Integer> integers(ObjectNode object, String name, int min, int max) {
        List<Integer> out = new ArrayList<>();
        for (JsonNode item : array(object, name)) {
            if (!item.isIntegralNumber() || item.asInt() < min || item.asInt() > max) {
                throw ApiException.invalid("timetable." + name, "\"" + name + "\" holds whole numbers from " + min
                        + " to " + max);
            }
            out.add(item.asInt());
        }
        return out.stream().distinct().sorted().toList();
    }

    /** Names ({@code MON}, {@code JAN}) as cron numbers: their index in {@code names} plus {@code first}. */
    private static List<Integer> names(ObjectNode object, String name, List<String> names, int first) {
        List<Integer> out = new ArrayList<>();
        for (JsonNode item : array(object, name)) {
            int index = item.isTextual() ? names.indexOf(item.asText().toUpperCase(Locale.ROOT)) : -1;
            if (index < 0) {
                throw ApiException.invalid("timetable." + name, "\"" + name + "\" holds " + String.join(", ", names));
            }
            out.add(index + first);
        }
        return out.stream().distinct().sorted().toList();
    }

    private static Iterable<JsonNode> array(ObjectNode object, String name) {
        JsonNode value = object.get(name);
        if (value == null || value.isNull()) {
            return List.of();
        }
        if (!value.isArray()) {
            throw ApiException.invalid("timetable." + name, "\"" + name + "\" must be an array");
        }
        return value;
    }

    private static String list(List<Integer> values) {
        return values.stream().map(String::valueOf).collect(Collectors.joining(","));
    }
}
