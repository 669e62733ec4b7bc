package dev.gantry.config.expand;

import dev.gantry.config.Limits;
import dev.gantry.config.diag.Problems;
import dev.gantry.config.orb.OrbResolver;
import dev.gantry.config.yaml.YNode;
import dev.gantry.config.yaml.YamlLoader;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Loads the orbs a scope imports: inline orbs from the config itself, registry orbs ({@code ns/name@version}) from the
 * {@link OrbResolver}. An orb may import orbs of its own; an import cycle is an error.
 */
final class Orbs {
    private static final Pattern REFERENCE = Pattern.compile("([A-Za-z0-9_-]+)/([A-Za-z0-9_-]+)@(\\S+)");
    static final List<String> ORB_KEYS = List.of("version", "description", "display", "orbs", "commands", "executors",
            "jobs", "examples");

    private final OrbResolver resolver;
    private final Limits limits;
    private final Problems problems;
    private final Map<String, YNode.MapNode> loaded = new HashMap<>();
    private final Deque<String> importing = new ArrayDeque<>();

    private final Substitutor substitutor;
    private final Env pipelineEnv;

    /** {@code pipelineEnv} lets an orb reference use pipeline parameters; null for version 2.0 configs. */
    Orbs(OrbResolver resolver, Limits limits, Problems problems, Substitutor substitutor, Env pipelineEnv) {
        this.resolver = resolver;
        this.limits = limits;
        this.problems = problems;
        this.substitutor = substitutor;
        this.pipelineEnv = pipelineEnv;
    }

    /** Adds the orbs declared under {@code orbsNode} (the value of an {@code orbs:} key) to {@code scope}. */
    void importInto(Definitions scope, YNode orbsNode, String path) {
        if (orbsNode == null || (orbsNode instanceof YNode.Scalar s && s.isNull())) {
            return;
        }
        if (!(orbsNode instanceof YNode.MapNode map)) {
            problems.error(orbsNode.pos(), path, "'orbs' must be a map of name to orb, not " + orbsNode.describe());
            return;
        }
        for (YNode.Entry e : map.entries()) {
            String alias = e.name();
            String p = path + "." + alias;
            if (alias.contains("/")) {
                problems.error(e.key().pos(), p, "orb names cannot contain '/'");
                continue;
            }
            if (e.value() instanceof YNode.MapNode inline) {
                scope.addOrb(alias, define(alias, inline, p + "."));
            } else if (e.value() instanceof YNode.Scalar s && s.isString()) {
                YNode.Scalar ref = pipelineEnv == null ? s : (YNode.Scalar) substitutor.apply(s, pipelineEnv, p);
                YNode.MapNode body = registry(ref, p);
                if (body != null) {
                    importing.push(ref.text());
                    scope.addOrb(alias, define(alias, body, ""));
                    importing.pop();
                } else {
                    scope.addMissingOrb(alias);
                }
            } else {
                problems.error(e.value().pos(), p, "an orb is a reference like 'circleci/node@5.1.0' or an inline "
                        + "orb map, not " + e.value().describe());
            }
        }
    }

    private Definitions define(String alias, YNode.MapNode body, String pathPrefix) {
        for (YNode.Entry k : body.entries()) {
            if (!ORB_KEYS.contains(k.name())) {
                problems.error(k.key().pos(), pathPrefix + k.name(), "unknown orb key '" + k.name() + "'",
                        Names.didYouMean(k.name(), ORB_KEYS));
            }
        }
        Definitions defs = new Definitions(alias + "/", pathPrefix);
        defs.readFrom(body, problems);
        importInto(defs, body.get("orbs"), pathPrefix + "orbs");
        return defs;
    }

    private YNode.MapNode registry(YNode.Scalar ref, String path) {
        Matcher m = REFERENCE.matcher(ref.text());
        if (!m.matches()) {
            problems.error(ref.pos(), path, "invalid orb reference '" + ref.text() + "'",
                    "write it as namespace/name@version, e.g. circleci/node@5.1.0");
            return null;
        }
        if (importing.contains(ref.text())) {
            problems.error(ref.pos(), path, "orb '" + ref.text() + "' imports itself: "
                    + String.join(" -> ", importing.reversed()) + " -> " + ref.text());
            return null;
        }
        if (importing.size() >= limits.maxExpansionDepth()) {
            problems.error(ref.pos(), path, "orb imports are nested deeper than " + limits.maxExpansionDepth());
            return null;
        }
        String ns = m.group(1);
        String name = m.group(2);
        String version = m.group(3);
        var source = resolver.resolve(ns, name, version);
        if (source.isEmpty()) {
            List<String> versions = resolver.available(ns, name);
            problems.error(ref.pos(), path, "orb '" + ref.text() + "' is not available in " + resolver.describe(),
                    versions.isEmpty() ? resolver.missingHint(ns, name, version)
                    : "it has versions " + Names.list(versions));
            return null;
        }
        String key = ns + "/" + name + "@" + source.get().version();
        if (loaded.containsKey(key)) {
            return loaded.get(key);
        }
        YNode root = new YamlLoader(limits, problems).load(source.get().file(), source.get().text());
        YNode.MapNode body = null;
        if (root instanceof YNode.MapNode map) {
            body = map;
        } else if (root != null) {
            problems.error(root.pos(), "", "an orb must be a map, not " + root.describe());
        }
        loaded.put(key, body);
        return body;
    }
}
