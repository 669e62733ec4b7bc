package dev.gantry.server.usage;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The ledger's daily lines summed over the dimensions a report groups by, and written as CSV. Pure.
 */
public final class UsageReport {
    /** What a report can group by, in the order its columns come. */
    public enum Dimension {
        ORG("org"), PROJECT("project"), RESOURCE_CLASS("resource_class"), DAY("day");

        final String word;

        Dimension(String word) {
            this.word = word;
        }

        static Optional<Dimension> ofWord(String word) {
            for (Dimension d : values()) {
                if (d.word.equals(word.strip().toLowerCase(Locale.ROOT).replace('-', '_'))) {
                    return Optional.of(d);
                }
            }
            return Optional.empty();
        }

        String of(UsageDao.Line line) {
            return switch (this) {
                case ORG -> line.organization();
                case PROJECT -> line.projectName();
                case RESOURCE_CLASS -> line.resourceClass();
                case DAY -> line.day().toString();
            };
        }
    }

    /** One row of a report: the values of its dimensions, in {@link Dimension} order, and the sums. */
    public record Row(Map<String, String> keys, long tasks, long runMs, long minutes, long credits) {
        /** The row's value of {@code dimension}; null when the report is not grouped by it. */
        public String key(Dimension dimension) {
            return keys.get(dimension.word);
        }

        Row plus(UsageDao.Line line) {
            return new Row(keys, tasks + line.tasks(), runMs + line.runMs(), minutes + line.minutes(),
                    credits + line.credits());
        }

        Row plus(Row other) {
            return new Row(keys, tasks + other.tasks, runMs + other.runMs, minutes + other.minutes,
                    credits + other.credits);
        }

        /** As the API's JSON writes it: the dimensions, then tasks, seconds, minutes and credits. */
        Map<String, Object> json() {
            Map<String, Object> json = new LinkedHashMap<>(keys);
            json.put("tasks", tasks);
            json.put("seconds", runMs / 1000.0);
            json.put("minutes", minutes);
            json.put("credits", credits);
            return json;
        }
    }

    private UsageReport() {
    }

    /** {@code lines} summed per distinct value of {@code groupBy} (in {@link Dimension} order), in the lines' order. */
    public static List<Row> group(List<UsageDao.Line> lines, List<Dimension> groupBy) {
        Map<List<String>, Row> rows = new LinkedHashMap<>();
        for (UsageDao.Line line : lines) {
            Map<String, String> keys = new LinkedHashMap<>();
            for (Dimension d : Dimension.values()) {
                if (groupBy.contains(d)) {
                    keys.put(d.word, d.of(line));
                }
            }
            List<String> id = List.copyOf(keys.values());
            rows.put(id, rows.getOrDefault(id, new Row(keys, 0, 0, 0, 0)).plus(line));
        }
        List<Row> sorted = new ArrayList<>(rows.values());
        sorted.sort((a, b) -> {
            for (String key : a.keys().keySet()) {
                int c = a.keys().get(key).compareTo(b.keys().get(key));
                if (c != 0) {
                    return c;
                }
            }
            return 0;
        });
        return sorted;
    }

    /** The sums of all {@code rows}, under no dimension. */
    public static Row total(List<Row> rows) {
        return rows.stream().reduce(new Row(Map.of(), 0, 0, 0, 0), Row::plus);
    }

    /** The rows as CSV (RFC 4180): a header of the dimensions and the sums, then one line per row. */
    static String csv(List<Dimension> groupBy, List<Row> rows) {
        StringBuilder out = new StringBuilder();
        List<String> header = new ArrayList<>();
        for (Dimension d : Dimension.values()) {
            if (groupBy.contains(d)) {
                header.add(d.word);
            }
        }
        header.addAll(List.of("tasks", "seconds", "minutes", "credits"));
        out.append(String.join(",", header)).append("\r\n");
        for (Row row : rows) {
            List<String> cells = new ArrayList<>();
            row.keys().values().forEach(v -> cells.add(cell(v)));
            cells.add(Long.toString(row.tasks()));
            cells.add(String.format(Locale.ROOT, "%.3f", row.runMs() / 1000.0));
            cells.add(Long.toString(row.minutes()));
            cells.add(Long.toString(row.credits()));
            out.append(String.join(",", cells)).append("\r\n");
        }
        return out.toString();
    }

    private static String cell(String value) {
        if (value.contains(",") || value.contains("\"") || value.contains("\n") || value.contains("\r")) {
            return '"' + value.replace("\"", "\"\"") + '"';
        }
        return value;
    }
}
