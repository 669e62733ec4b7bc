package dev.gantry.config.yaml;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * An immutable YAML node with the position it was written at. Aliases are already followed (an aliased subtree is
 * shared, not copied) and merge keys ({@code <<: *x}) already merged, so the compiler sees plain maps, sequences and
 * scalars.
 */
public sealed interface YNode {

    Pos pos();

    /** The YAML word for this node's kind, for messages: "a string", "a map", … */
    String describe();

    /**
     * A scalar. {@code value} is a String, Boolean, Long, Double or null (YAML null) as YAML 1.1 resolves it;
     * {@code text} is the scalar as written, so {@code 1.10} keeps its trailing zero when used as text.
     */
    record Scalar(Object value, String text, Pos pos) implements YNode {

        public static Scalar of(String text, Pos pos) {
            return new Scalar(text, text, pos);
        }

        public boolean isString() {
            return value instanceof String;
        }

        public boolean isNull() {
            return value == null;
        }

        @Override
        public String describe() {
            if (value == null) {
                return "null";
            }
            return switch (value) {
                case Boolean b -> "a boolean";
                case Long l -> "an integer";
                case Double d -> "a number";
                default -> "a string";
            };
        }
    }

    /** One key and value of a map; keys are always scalars. */
    record Entry(Scalar key, YNode value) {
        public String name() {
            return key.text();
        }
    }

    /** A map whose keys are unique, in document order. */
    final class MapNode implements YNode {
        private static final int INDEX_FROM = 8;
        private final List<Entry> entries;
        private final Pos pos;
        private Map<String, Entry> index; // built on first lookup of a large map; racy but idempotent

        public MapNode(List<Entry> entries, Pos pos) {
            this.entries = List.copyOf(entries);
            this.pos = pos;
        }

        public List<Entry> entries() {
            return entries;
        }

        public int size() {
            return entries.size();
        }

        public boolean isEmpty() {
            return entries.isEmpty();
        }

        public Entry entry(String key) {
            if (entries.size() < INDEX_FROM) {
                for (Entry e : entries) {
                    if (e.name().equals(key)) {
                        return e;
                    }
                }
                return null;
            }
            Map<String, Entry> idx = index;
            if (idx == null) {
                idx = new HashMap<>(entries.size() * 2);
                for (Entry e : entries) {
                    idx.put(e.name(), e);
                }
                index = idx;
            }
            return idx.get(key);
        }

        public YNode get(String key) {
            Entry e = entry(key);
            return e == null ? null : e.value();
        }

        public boolean has(String key) {
            return entry(key) != null;
        }

        public List<String> keys() {
            return entries.stream().map(Entry::name).toList();
        }

        @Override
        public Pos pos() {
            return pos;
        }

        @Override
        public String describe() {
            return "a map";
        }

        @Override
        public String toString() {
            return "MapNode" + entries;
        }
    }

    /** A sequence. */
    record SeqNode(List<YNode> items, Pos pos) implements YNode {
        public SeqNode {
            items = List.copyOf(items);
        }

        @Override
        public String describe() {
            return "a list";
        }
    }
}
