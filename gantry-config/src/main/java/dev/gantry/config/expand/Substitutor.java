package dev.gantry.config.expand;

import dev.gantry.config.diag.Problems;
import dev.gantry.config.yaml.Pos;
import dev.gantry.config.yaml.YNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Replaces {@code << parameters.x >>}, {@code << pipeline.x >>} and {@code << matrix.x >>} in a subtree.
 *
 * <p>A scalar that is exactly one reference becomes the referenced value itself, keeping its type (a boolean, a map
 * for an executor, a list for steps); a reference inside text becomes the value's text. In a list, a reference to a
 * list is spliced in place, which is how {@code steps} parameters work. {@code <<# parameters.x >>…<</ parameters.x >>}
 * keeps its body when x is truthy ({@code <<^} when falsy), and {@code \<<} is a literal {@code <<}. Text between
 * {@code <<} and {@code >>} that is not such a reference (a shell heredoc, say) is left alone. Substituted values are
 * not scanned again, so substitution cannot recurse. Unchanged subtrees are returned as the same instances.
 */
final class Substitutor {
    private static final Pattern REF = Pattern.compile("\\s*([#^/]?)\\s*(parameters|pipeline|matrix)\\.([A-Za-z0-9_.-]+)\\s*");
    private static final Pattern CLOSER = Pattern.compile(
            "<<\\s*/\\s*((?:parameters|pipeline|matrix)\\.[A-Za-z0-9_.-]+)\\s*>>");
    /** Longest text between {@code <<} and {@code >>} that is read as a reference; longer is plain text. */
    private static final int MAX_REFERENCE = 256;

    private final Problems problems;
    private final Budget budget;
    private final Map<YNode, Boolean> templated = new IdentityHashMap<>();

    Substitutor(Problems problems, Budget budget) {
        this.problems = problems;
        this.budget = budget;
    }

    YNode apply(YNode node, Env env, String path) {
        return apply(node, env, Loc.of(path));
    }

    /**
     * The body of a job, command or executor with its bound parameters (and the pipeline values) substituted. A
     * version 2.0 config has no {@code pipelineEnv} and no parameters: its bodies stay as written (commands and
     * executors there are already reported as needing 2.1).
     */
    YNode applyParameters(YNode body, Env pipelineEnv, Map<String, YNode> bound, String owner, String path) {
        return pipelineEnv == null ? body : apply(body, pipelineEnv.withParameters(bound, owner), path);
    }

    /** A config path, rendered only when a message needs it: most substitutions report nothing. */
    private record Loc(Loc parent, String key, int index, String text) {
        static Loc of(String path) {
            return new Loc(null, null, -1, path);
        }

        Loc key(String k) {
            return new Loc(this, k, -1, null);
        }

        Loc index(int i) {
            return new Loc(this, null, i, null);
        }

        @Override
        public String toString() {
            if (text != null) {
                return text;
            }
            String p = parent.toString();
            return key != null ? (p.isEmpty() ? key : p + "." + key) : p + "[" + index + "]";
        }
    }

    private YNode apply(YNode node, Env env, Loc path) {
        if (!(node instanceof YNode.Scalar) && !hasTemplates(node)) {
            return node; // aliased subtrees are shared, so each is checked once however often it is used
        }
        return switch (node) {
            case YNode.Scalar s -> scalar(s, env, path);
            case YNode.SeqNode seq -> seq(seq, env, path);
            case YNode.MapNode map -> map(map, env, path);
        };
    }

    private boolean hasTemplates(YNode node) {
        if (node instanceof YNode.Scalar s) {
            return s.value() instanceof String t && t.contains("<<");
        }
        Boolean known = templated.get(node);
        if (known == null) {
            known = false;
            if (node instanceof YNode.SeqNode seq) {
                for (YNode item : seq.items()) {
                    if (hasTemplates(item)) {
                        known = true;
                        break;
                    }
                }
            } else {
                for (YNode.Entry e : ((YNode.MapNode) node).entries()) {
                    if (hasTemplates(e.key()) || hasTemplates(e.value())) {
                        known = true;
                        break;
                    }
                }
            }
            templated.put(node, known);
        }
        return known;
    }

    private YNode seq(YNode.SeqNode seq, Env env, Loc path) {
        List<YNode> out = null;
        List<YNode> items = seq.items();
        for (int i = 0; i < items.size(); i++) {
            YNode item = items.get(i);
            YNode done = apply(item, env, path.index(i));
            boolean splice = done instanceof YNode.SeqNode && item instanceof YNode.Scalar;
            if (done != item && out == null) {
                out = new ArrayList<>(items.size() + 4);
                out.addAll(items.subList(0, i));
            }
            if (out != null) {
                if (splice) {
                    out.addAll(((YNode.SeqNode) done).items());
                } else {
                    out.add(done);
                }
            }
        }
        if (out == null) {
            return seq;
        }
        budget.spend(out.size(), seq.pos(), path);
        return new YNode.SeqNode(out, seq.pos());
    }

    private YNode map(YNode.MapNode map, Env env, Loc path) {
        List<YNode.Entry> out = null;
        List<YNode.Entry> entries = map.entries();
        for (int i = 0; i < entries.size(); i++) {
            YNode.Entry e = entries.get(i);
            Loc childPath = path.key(e.name());
            YNode.Scalar key = e.key();
            if (key.text().contains("<<")) {
                YNode k = scalar(key, env, childPath);
                key = k instanceof YNode.Scalar ks ? YNode.Scalar.of(ks.text(), key.pos()) : key;
            }
            YNode value = apply(e.value(), env, childPath);
            if ((value != e.value() || key != e.key()) && out == null) {
                out = new ArrayList<>(entries.size());
                out.addAll(entries.subList(0, i));
            }
            if (out != null) {
                out.add(new YNode.Entry(key, value));
            }
        }
        if (out == null) {
            return map;
        }
        budget.spend(out.size(), map.pos(), path);
        return new YNode.MapNode(out, map.pos());
    }

    private YNode scalar(YNode.Scalar s, Env env, Loc path) {
        if (!(s.value() instanceof String text) || text.indexOf("<<") < 0) {
            return s;
        }
        String stripped = text.strip();
        if (stripped.startsWith("<<") && stripped.endsWith(">>") && stripped.indexOf("<<", 2) < 0) {
            Matcher m = REF.matcher(stripped.substring(2, stripped.length() - 2));
            if (m.matches() && m.group(1).isEmpty()) {
                YNode value = resolve(m.group(2), m.group(3), env, s.pos(), path);
                if (value == null) {
                    return s;
                }
                budget.spend(1, s.pos(), path);
                return value instanceof YNode.Scalar v ? new YNode.Scalar(v.value(), v.text(), s.pos()) : value;
            }
        }
        String replaced = interpolate(text, env, s.pos(), path);
        if (replaced.equals(text)) {
            return s;
        }
        budget.spend(1, s.pos(), path);
        return YNode.Scalar.of(replaced, s.pos());
    }

    private String interpolate(String text, Env env, Pos pos, Loc path) {
        StringBuilder out = new StringBuilder(text.length());
        Map<String, List<int[]>> closers = null; // built on the first section, in one pass over the text
        Map<Integer, Integer> pendingClosers = new HashMap<>(); // closers of kept sections: start -> end
        int close = -1; // the first ">>" after the current "<<"; every step below is linear in the text
        int i = 0;
        while (i < text.length()) {
            int open = text.indexOf("<<", i);
            if (open < 0) {
                out.append(text, i, text.length());
                break;
            }
            Integer closerEnd = pendingClosers.remove(open);
            if (closerEnd != null) {
                out.append(text, i, open);
                i = closerEnd;
                continue;
            }
            if (open > 0 && text.charAt(open - 1) == '\\') {
                out.append(text, i, open - 1).append("<<");
                i = open + 2;
                continue;
            }
            if (close < open + 2) {
                close = text.indexOf(">>", open + 2);
            }
            if (close < 0) {
                out.append(text, i, text.length());
                break;
            }
            Matcher m = close - open > MAX_REFERENCE ? null : REF.matcher(text).region(open + 2, close);
            if (m == null || !m.matches() || m.group(1).equals("/")) {
                out.append(text, i, open + 2);
                i = open + 2;
                continue;
            }
            out.append(text, i, open);
            // Each reference is work: text repeated through aliases must not multiply it past the budget.
            budget.spend(1, pos, path);
            String ref = m.group(2) + "." + m.group(3);
            if (m.group(1).isEmpty()) {
                YNode value = resolve(m.group(2), m.group(3), env, pos, path);
                out.append(value == null ? text.substring(open, close + 2) : textOf(value, ref, pos, path));
                i = close + 2;
                continue;
            }
            // a section: <<# ref >> body <</ ref >>, kept when ref is truthy (<<^ when falsy)
            if (closers == null) {
                closers = closers(text);
            }
            int[] closer = firstAfter(closers.get(ref), close + 2);
            if (closer == null) {
                problems.error(pos, path.toString(), "'<<" + m.group(1) + " " + ref + " >>' has no closing '<</ " + ref + " >>'");
                out.append(text, open, close + 2);
                i = close + 2;
                continue;
            }
            YNode value = resolve(m.group(2), m.group(3), env, pos, path);
            if (value != null && Logic.truthy(value) == m.group(1).equals("#")) {
                pendingClosers.put(closer[0], closer[1]);
                i = close + 2;
            } else {
                i = closer[1];
            }
        }
        return out.toString();
    }

    /** Start and end of every section closer in {@code text}, by reference. */
    private static Map<String, List<int[]>> closers(String text) {
        Map<String, List<int[]>> out = new HashMap<>();
        Matcher m = CLOSER.matcher(text);
        while (m.find()) {
            out.computeIfAbsent(m.group(1), k -> new ArrayList<>()).add(new int[] {m.start(), m.end()});
        }
        return out;
    }

    private static int[] firstAfter(List<int[]> positions, int from) {
        if (positions == null) {
            return null;
        }
        int lo = 0;
        int hi = positions.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (positions.get(mid)[0] < from) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo < positions.size() ? positions.get(lo) : null;
    }

    private String textOf(YNode value, String ref, Pos pos, Loc path) {
        if (value instanceof YNode.Scalar s) {
            return s.value() == null ? "" : s.text();
        }
        problems.error(pos, path.toString(), "'" + ref + "' is " + value.describe() + " and cannot be placed inside text",
                "use it as the whole value: '<< " + ref + " >>'");
        return "";
    }

    private YNode resolve(String ns, String name, Env env, Pos pos, Loc loc) {
        if (env == null) {
            return null;
        }
        switch (ns) {
            case "pipeline" -> {
                YNode v = env.pipeline().get(name, pos);
                if (v == null) {
                    problems.error(pos, loc.toString(), "unknown pipeline value 'pipeline." + name + "'",
                            problems.full() ? null : Names.didYouMean(name, toList(env.pipeline().names())));
                }
                return v;
            }
            case "matrix" -> {
                if (env.matrix() == null) {
                    problems.error(pos, loc.toString(), "'<< matrix." + name + " >>' is only available in a workflow job entry "
                            + "with a matrix");
                    return null;
                }
                YNode v = env.matrix().get(name);
                if (v == null) {
                    problems.error(pos, loc.toString(), "unknown matrix parameter '" + name + "'",
                            hintFor(name, env.matrix().keySet(), "the matrix has"));
                }
                return v;
            }
            default -> {
                if (env.parameters() == null) {
                    problems.error(pos, loc.toString(), "'<< parameters." + name + " >>' is used outside a job, command or "
                            + "executor", "workflows can use '<< pipeline.parameters." + name + " >>'");
                    return null;
                }
                YNode v = env.parameters().get(name);
                if (v == null) {
                    problems.error(pos, loc.toString(), env.owner() + " has no parameter '" + name + "'",
                            hintFor(name, env.parameters().keySet(), "declared"));
                }
                return v;
            }
        }
    }

    private String hintFor(String name, java.util.Collection<String> known, String what) {
        if (problems.full()) {
            return null;
        }
        String mean = Names.didYouMean(name, known);
        return mean != null ? mean : what + ": " + Names.list(known);
    }

    private static List<String> toList(Iterable<String> names) {
        List<String> out = new ArrayList<>();
        names.forEach(out::add);
        return out;
    }
}
