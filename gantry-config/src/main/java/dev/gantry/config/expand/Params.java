package dev.gantry.config.expand;

import dev.gantry.config.diag.Problems;
import dev.gantry.config.yaml.Pos;
import dev.gantry.config.yaml.YNode;
import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Parameter declarations ({@code parameters:} of jobs, commands, executors and the pipeline) and binding the values
 * of one invocation to them, with type checks.
 */
final class Params {
    static final List<String> TYPES = List.of("string", "boolean", "integer", "enum", "executor", "steps", "env_var_name");
    static final List<String> PIPELINE_TYPES = List.of("string", "boolean", "integer", "enum");
    private static final List<String> DECL_KEYS = List.of("type", "default", "description", "enum");
    private static final Pattern ENV_VAR_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    private static final Pattern INTEGER = Pattern.compile("[-+]?[0-9]+");

    /** One declared parameter; {@code defaultValue} is null when the parameter is required. */
    record Decl(String name, String type, YNode defaultValue, List<String> enumValues, Pos pos, String path) {
    }

    private final Problems problems;
    private final Substitutor substitutor;
    private final Map<YNode, Map<String, Decl>> cache = new IdentityHashMap<>();

    Params(Problems problems, Substitutor substitutor) {
        this.problems = problems;
        this.substitutor = substitutor;
    }

    /**
     * The declarations under {@code node} ({@code parameters:}); bad ones are reported and left out. A definition
     * invoked many times is read once.
     */
    Map<String, Decl> declarations(YNode node, String path, List<String> allowedTypes) {
        if (node == null || (node instanceof YNode.Scalar s && s.isNull())) {
            return Map.of();
        }
        Map<String, Decl> known = cache.get(node);
        if (known == null) {
            known = read(node, path, allowedTypes);
            cache.put(node, known);
        }
        return known;
    }

    private Map<String, Decl> read(YNode node, String path, List<String> allowedTypes) {
        Map<String, Decl> out = new LinkedHashMap<>();
        if (!(node instanceof YNode.MapNode map)) {
            problems.error(node.pos(), path, "parameters must be a map of name to declaration, not " + node.describe());
            return out;
        }
        for (YNode.Entry e : map.entries()) {
            String p = path + "." + e.name();
            if (!(e.value() instanceof YNode.MapNode decl)) {
                problems.error(e.value().pos(), p, "a parameter declaration must be a map with at least 'type', not "
                        + e.value().describe());
                continue;
            }
            for (YNode.Entry k : decl.entries()) {
                if (!DECL_KEYS.contains(k.name())) {
                    problems.error(k.key().pos(), p + "." + k.name(), "unknown key '" + k.name()
                            + "' in a parameter declaration", hint(k.name(), DECL_KEYS));
                }
            }
            YNode typeNode = decl.get("type");
            if (!(typeNode instanceof YNode.Scalar ts) || !ts.isString()) {
                problems.error(decl.pos(), p, "parameter '" + e.name() + "' has no 'type'",
                        "one of " + Names.list(allowedTypes));
                continue;
            }
            String type = ts.text();
            if (!allowedTypes.contains(type)) {
                problems.error(ts.pos(), p + ".type", "unknown parameter type '" + type + "'"
                        + (TYPES.contains(type) ? " for pipeline parameters" : ""), hint(type, allowedTypes));
                continue;
            }
            List<String> enumValues = List.of();
            if (type.equals("enum")) {
                YNode en = decl.get("enum");
                if (!(en instanceof YNode.SeqNode seq) || seq.items().isEmpty()
                        || !seq.items().stream().allMatch(i -> i instanceof YNode.Scalar)) {
                    problems.error(en == null ? decl.pos() : en.pos(), p + ".enum",
                            "an enum parameter needs 'enum': a non-empty list of values");
                    continue;
                }
                enumValues = seq.items().stream().map(i -> ((YNode.Scalar) i).text()).toList();
            } else if (decl.has("enum")) {
                problems.error(decl.entry("enum").key().pos(), p + ".enum", "'enum' is only for parameters of type enum");
            }
            Decl d = new Decl(e.name(), type, null, enumValues, e.key().pos(), p);
            YNode def = decl.get("default");
            if (decl.has("default")) {
                YNode checked = check(d, def == null ? YNode.Scalar.of("", decl.pos()) : def, p + ".default");
                if (checked == null) {
                    continue;
                }
                d = new Decl(e.name(), type, checked, enumValues, e.key().pos(), p);
            }
            out.put(e.name(), d);
        }
        return out;
    }

    /**
     * Binds the arguments of one invocation. Arguments whose names are in {@code reserved} belong to the invocation
     * itself ({@code requires}, {@code name}, …) and are skipped. Defaults may read pipeline values.
     *
     * @return every declared parameter's value; null when an argument was missing or wrong (already reported)
     */
    Map<String, YNode> bind(Map<String, Decl> decls, YNode.MapNode args, Set<String> reserved, Pos callPos,
                            String callPath, String owner, Env pipelineEnv) {
        Map<String, YNode> out = new LinkedHashMap<>();
        boolean ok = true;
        if (args != null) {
            for (YNode.Entry e : args.entries()) {
                if (reserved.contains(e.name())) {
                    continue;
                }
                if (!decls.containsKey(e.name())) {
                    List<String> known = new ArrayList<>(decls.keySet());
                    known.addAll(reserved);
                    problems.error(e.key().pos(), callPath + "." + e.name(), owner + " has no parameter '"
                            + e.name() + "'", hintOrList(e.name(), known, decls.keySet()));
                    ok = false;
                }
            }
        }
        for (Decl d : decls.values()) {
            YNode.Entry given = args == null ? null : args.entry(d.name());
            if (given != null) {
                YNode v = check(d, given.value(), callPath + "." + d.name());
                if (v == null) {
                    ok = false;
                } else {
                    out.put(d.name(), v);
                }
            } else if (d.defaultValue() != null) {
                out.put(d.name(), substitutor.apply(d.defaultValue(), pipelineEnv, d.path() + ".default"));
            } else {
                problems.error(callPos, callPath, owner + " needs parameter '" + d.name() + "' (" + d.type() + ")",
                        "declared at " + d.pos().file() + ":" + d.pos().line() + ":" + d.pos().column());
                ok = false;
            }
        }
        return ok ? out : null;
    }

    /** {@code value} as the declared type requires, or null after reporting why it does not fit. */
    YNode check(Decl d, YNode value, String path) {
        String type = d.type();
        String what = "parameter '" + d.name() + "'";
        if (type.equals("steps")) {
            if (value instanceof YNode.SeqNode) {
                return value;
            }
            if (value instanceof YNode.Scalar s && s.isNull()) {
                return new YNode.SeqNode(List.of(), s.pos());
            }
            return wrong(value, path, what + " must be a list of steps");
        }
        if (type.equals("executor")) {
            if ((value instanceof YNode.Scalar s && s.isString() && !s.text().isEmpty())
                    || (value instanceof YNode.MapNode m && m.get("name") instanceof YNode.Scalar)) {
                return value;
            }
            return wrong(value, path, what + " must be an executor name, or a map with 'name' and its parameters");
        }
        if (!(value instanceof YNode.Scalar s)) {
            return wrong(value, path, what + " must be " + article(type));
        }
        switch (type) {
            case "boolean" -> {
                if (s.value() instanceof Boolean) {
                    return s;
                }
                if (s.isString() && (s.text().equals("true") || s.text().equals("false"))) {
                    return new YNode.Scalar(Boolean.valueOf(s.text()), s.text(), s.pos());
                }
                return wrong(s, path, what + " must be a boolean (true or false)");
            }
            case "integer" -> {
                if (s.value() instanceof Long) {
                    return s;
                }
                if (s.isString() && INTEGER.matcher(s.text()).matches()) {
                    try {
                        return new YNode.Scalar(Long.parseLong(s.text()), s.text(), s.pos());
                    } catch (NumberFormatException e) {
                        return wrong(s, path, what + " is too large for an integer");
                    }
                }
                return wrong(s, path, what + " must be an integer");
            }
            case "enum" -> {
                if (s.value() != null && d.enumValues().contains(s.text())) {
                    return YNode.Scalar.of(s.text(), s.pos());
                }
                problems.error(s.pos(), path, what + " must be one of " + Names.list(d.enumValues()) + ", got '"
                        + s.text() + "'", Names.didYouMean(s.text(), d.enumValues()));
                return null;
            }
            case "env_var_name" -> {
                if (s.value() != null && ENV_VAR_NAME.matcher(s.text()).matches()) {
                    return YNode.Scalar.of(s.text(), s.pos());
                }
                return wrong(s, path, what + " must be an environment variable name (letters, digits and _, not "
                        + "starting with a digit)");
            }
            default -> { // string: any scalar, as written
                return s.value() == null ? YNode.Scalar.of("", s.pos()) : YNode.Scalar.of(s.text(), s.pos());
            }
        }
    }

    private YNode wrong(YNode value, String path, String message) {
        String got = value instanceof YNode.Scalar s && s.value() != null ? " '" + s.text() + "'" : "";
        problems.error(value.pos(), path, message + ", got " + value.describe() + got);
        return null;
    }

    private static String article(String type) {
        return switch (type) {
            case "integer", "enum", "env_var_name" -> "an " + type.replace('_', ' ');
            default -> "a " + type;
        };
    }

    private static String hint(String wrong, Collection<String> known) {
        String mean = Names.didYouMean(wrong, known);
        return mean != null ? mean : "expected one of " + Names.list(known);
    }

    private static String hintOrList(String wrong, Collection<String> known, Collection<String> declared) {
        String mean = Names.didYouMean(wrong, known);
        return mean != null ? mean : "declared parameters: " + Names.list(declared);
    }
}
