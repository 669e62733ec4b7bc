package dev.gantry.config.expand;

import dev.gantry.config.diag.Problems;
import dev.gantry.config.yaml.YNode;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The commands, executors and jobs visible in one scope — the config itself or one orb — and the orbs it imports.
 * Names inside an orb are unqualified; {@code node/install} reaches command {@code install} of the imported orb
 * {@code node}. A definition's body is expanded in the scope that declared it.
 */
final class Definitions {
    enum Kind {
        COMMAND("commands", "command"), EXECUTOR("executors", "executor"), JOB("jobs", "job");

        final String key;
        final String word;

        Kind(String key, String word) {
            this.key = key;
            this.word = word;
        }
    }

    /**
     * One definition.
     *
     * @param name  as referenced from the root config ({@code build}, {@code node/test})
     * @param path  config path of the definition in its file, for messages
     */
    record Def(Kind kind, String name, YNode.MapNode body, Definitions scope, String path) {
    }

    private final String prefix;
    private final String pathPrefix;
    private final Map<Kind, Map<String, Def>> defs = new LinkedHashMap<>();
    private final Map<String, Definitions> orbs = new LinkedHashMap<>();
    private final java.util.Set<String> missingOrbs = new java.util.HashSet<>();

    /**
     * @param prefix     how the root config names this scope's elements ("" or "node/")
     * @param pathPrefix config path of this scope's body ("" or "orbs.node.")
     */
    Definitions(String prefix, String pathPrefix) {
        this.prefix = prefix;
        this.pathPrefix = pathPrefix;
        for (Kind k : Kind.values()) {
            defs.put(k, new LinkedHashMap<>());
        }
    }

    /** Reads the commands, executors and jobs maps of {@code body}; orbs are added by the caller. */
    void readFrom(YNode.MapNode body, Problems problems) {
        for (Kind k : Kind.values()) {
            YNode section = body.get(k.key);
            if (section == null || (section instanceof YNode.Scalar s && s.isNull())) {
                continue;
            }
            String path = pathPrefix + k.key;
            if (!(section instanceof YNode.MapNode map)) {
                problems.error(section.pos(), path, "'" + k.key + "' must be a map of name to " + k.word
                        + ", not " + section.describe());
                continue;
            }
            for (YNode.Entry e : map.entries()) {
                String p = path + "." + e.name();
                if (e.name().contains("/")) {
                    problems.error(e.key().pos(), p, k.word + " names cannot contain '/'",
                            "'/' separates an orb from its " + k.word + "s");
                } else if (e.value() instanceof YNode.MapNode m) {
                    defs.get(k).put(e.name(), new Def(k, prefix + e.name(), m, this, p));
                } else {
                    problems.error(e.value().pos(), p, k.word + " '" + e.name() + "' must be a map, not "
                            + e.value().describe());
                }
            }
        }
    }

    void addOrb(String alias, Definitions orb) {
        orbs.put(alias, orb);
    }

    /** Records an orb that failed to load (already reported), so references into it raise no second error. */
    void addMissingOrb(String alias) {
        missingOrbs.add(alias);
    }

    /** True when {@code name} reaches into an orb that failed to load. */
    boolean refersToMissingOrb(String name) {
        int slash = name.indexOf('/');
        return slash > 0 && missingOrbs.contains(name.substring(0, slash));
    }

    /** The definition {@code name} refers to from this scope, or null. */
    Def find(Kind kind, String name) {
        int slash = name.indexOf('/');
        if (slash < 0) {
            return defs.get(kind).get(name);
        }
        Definitions orb = orbs.get(name.substring(0, slash));
        String rest = name.substring(slash + 1);
        return orb == null || rest.contains("/") ? null : orb.defs.get(kind).get(rest);
    }

    boolean hasOrb(String alias) {
        return orbs.containsKey(alias);
    }

    /** Every name of this kind that can be referenced from this scope, for did-you-mean hints. */
    Collection<String> visible(Kind kind) {
        List<String> out = new ArrayList<>(defs.get(kind).keySet());
        orbs.forEach((alias, orb) -> orb.defs.get(kind).keySet().forEach(n -> out.add(alias + "/" + n)));
        return out;
    }
}
