package dev.gantry.config.expand;

import dev.gantry.config.diag.Problems;
import dev.gantry.config.yaml.YNode;
import java.util.LinkedHashMap;
import java.util.Map;

/** Reads {@code environment:} maps: names to scalar values, kept as the text written. */
final class Environments {
    private Environments() {
    }

    static Map<String, String> read(YNode node, String path, Problems problems) {
        Map<String, String> out = new LinkedHashMap<>();
        if (node == null || (node instanceof YNode.Scalar s && s.isNull())) {
            return out;
        }
        if (node instanceof YNode.SeqNode seq) { // lists of NAME=value or of one-entry maps are seen in the wild
            for (YNode item : seq.items()) {
                if (item instanceof YNode.Scalar s && s.isString() && s.text().indexOf('=') > 0) {
                    out.put(s.text().substring(0, s.text().indexOf('=')), s.text().substring(s.text().indexOf('=') + 1));
                } else {
                    out.putAll(read(item, path, problems));
                }
            }
            return out;
        }
        if (!(node instanceof YNode.MapNode map)) {
            problems.error(node.pos(), path, "'environment' must be a map of names to values, not " + node.describe());
            return out;
        }
        for (YNode.Entry e : map.entries()) {
            if (e.value() instanceof YNode.Scalar s) {
                out.put(e.name(), s.value() == null ? "" : s.text());
            } else {
                problems.error(e.value().pos(), path + "." + e.name(), "environment variable '" + e.name()
                        + "' must be a value, not " + e.value().describe());
            }
        }
        return out;
    }
}
