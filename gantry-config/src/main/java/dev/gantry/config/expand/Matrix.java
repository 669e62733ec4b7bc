package dev.gantry.config.expand;

import dev.gantry.config.diag.Problems;
import dev.gantry.config.yaml.YNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Expands a workflow entry's {@code matrix} into parameter combinations, as CircleCI does: parameters in name order,
 * the first varying slowest, minus the {@code exclude}d combinations. An instance is named after the job and its
 * values, {@code build-linux-18}.
 */
final class Matrix {
    private static final List<String> KEYS = List.of("parameters", "exclude", "alias");

    /** The combinations of one matrix, or null when it is malformed (reported). */
    record Expansion(List<Map<String, YNode>> combinations, String alias) {
    }

    private final Problems problems;
    private final int maxJobs;

    Matrix(Problems problems, int maxJobs) {
        this.problems = problems;
        this.maxJobs = maxJobs;
    }

    Expansion expand(YNode node, String path) {
        if (!(node instanceof YNode.MapNode map) || !(map.get("parameters") instanceof YNode.MapNode params)
                || params.isEmpty()) {
            problems.error(node.pos(), path, "'matrix' needs 'parameters': a map of parameter name to a list of values");
            return null;
        }
        for (YNode.Entry e : map.entries()) {
            if (!KEYS.contains(e.name())) {
                problems.error(e.key().pos(), path + "." + e.name(), "unknown key '" + e.name() + "' in 'matrix'",
                        Names.didYouMean(e.name(), KEYS));
            }
        }
        Map<String, List<YNode>> values = new TreeMap<>();
        long count = 1;
        for (YNode.Entry e : params.entries()) {
            if (!(e.value() instanceof YNode.SeqNode seq) || seq.items().isEmpty()) {
                problems.error(e.value().pos(), path + ".parameters." + e.name(), "matrix parameter '" + e.name()
                        + "' must be a non-empty list of values", "write " + e.name() + ": [a, b]");
                return null;
            }
            values.put(e.name(), seq.items());
            count *= seq.items().size();
            if (count > maxJobs) {
                problems.error(map.pos(), path, "the matrix expands to more than " + maxJobs + " jobs",
                        "split it, or exclude combinations");
                return null;
            }
        }
        List<Map<String, YNode>> combos = new ArrayList<>();
        combos.add(new LinkedHashMap<>());
        for (var e : values.entrySet()) {
            List<Map<String, YNode>> next = new ArrayList<>(combos.size() * e.getValue().size());
            for (Map<String, YNode> c : combos) {
                for (YNode v : e.getValue()) {
                    Map<String, YNode> m = new LinkedHashMap<>(c);
                    m.put(e.getKey(), v);
                    next.add(m);
                }
            }
            combos = next;
        }
        YNode exclude = map.get("exclude");
        if (exclude != null) {
            if (!(exclude instanceof YNode.SeqNode seq)) {
                problems.error(exclude.pos(), path + ".exclude", "'exclude' must be a list of parameter maps");
                return null;
            }
            for (int i = 0; i < seq.items().size(); i++) {
                YNode ex = seq.items().get(i);
                String p = path + ".exclude[" + i + "]";
                if (!(ex instanceof YNode.MapNode exMap)) {
                    problems.error(ex.pos(), p, "an exclusion must be a map of parameter name to value");
                    continue;
                }
                if (!exMap.keys().containsAll(values.keySet()) || exMap.size() != values.size()) {
                    problems.error(ex.pos(), p, "an exclusion must give a value for each matrix parameter: "
                            + Names.list(values.keySet()));
                    continue;
                }
                int before = combos.size();
                combos.removeIf(c -> c.entrySet().stream().allMatch(v -> Logic.same(v.getValue(), exMap.get(v.getKey()))));
                if (before == combos.size()) {
                    problems.warning(ex.pos(), p, "this exclusion matches no combination of the matrix", null);
                }
            }
        }
        String alias = null;
        if (map.get("alias") instanceof YNode.Scalar a && a.value() != null) {
            alias = a.text();
        } else if (map.has("alias")) {
            problems.error(map.get("alias").pos(), path + ".alias", "'alias' must be a name");
        }
        return new Expansion(combos, alias);
    }

    /** The default name of one combination: the job name and each value, joined by dashes. */
    static String name(String job, Map<String, YNode> combination) {
        StringBuilder out = new StringBuilder(job);
        combination.values().forEach(v -> out.append('-').append(label(v)));
        return out.toString();
    }

    /** A value as it appears in a job name: scalars as written, an executor map by its name. */
    static String label(YNode value) {
        if (value instanceof YNode.Scalar s) {
            return s.value() == null ? "" : s.text();
        }
        if (value instanceof YNode.MapNode m && m.get("name") instanceof YNode.Scalar n) {
            return n.text();
        }
        return value instanceof YNode.SeqNode ? "list" : "map";
    }
}
