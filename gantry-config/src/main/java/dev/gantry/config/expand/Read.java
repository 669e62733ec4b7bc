package dev.gantry.config.expand;

import dev.gantry.config.diag.Problems;
import dev.gantry.config.yaml.YNode;
import java.util.List;

/** Small readers shared by the parts that check a map's keys and read its scalar values. */
final class Read {
    private Read() {
    }

    /** The text of {@code key}, null when absent or null; a list or map there is reported. */
    static String text(Problems problems, YNode.MapNode map, String key, String path) {
        YNode v = map == null ? null : map.get(key);
        if (v == null || (v instanceof YNode.Scalar s && s.isNull())) {
            return null;
        }
        if (v instanceof YNode.Scalar s) {
            return s.text();
        }
        problems.error(v.pos(), path + "." + key, "'" + key + "' must be a value, not " + v.describe());
        return null;
    }

    /** Reports each key of {@code map} that is not in {@code allowed}; true when there was none. */
    static boolean knownKeys(Problems problems, YNode.MapNode map, String path, List<String> allowed, String what) {
        boolean ok = true;
        for (YNode.Entry e : map.entries()) {
            if (!allowed.contains(e.name())) {
                String mean = Names.didYouMean(e.name(), allowed);
                problems.error(e.key().pos(), path + "." + e.name(), "unknown key '" + e.name() + "' in " + what,
                        mean != null ? mean : "allowed: " + Names.list(allowed));
                ok = false;
            }
        }
        return ok;
    }

    /**
     * Warns about each key of {@code map} that is not in {@code allowed}, for maps where CircleCI ignores what it
     * does not know instead of rejecting the config.
     */
    static void ignoredKeys(Problems problems, YNode.MapNode map, String path, List<String> allowed, String what) {
        for (YNode.Entry e : map.entries()) {
            if (!allowed.contains(e.name())) {
                String mean = Names.didYouMean(e.name(), allowed);
                problems.warning(e.key().pos(), path + "." + e.name(), "unknown key '" + e.name() + "' in " + what
                        + " is ignored", mean != null ? mean : "allowed: " + Names.list(allowed));
            }
        }
    }
}
