package dev.gantry.config.expand;

import dev.gantry.config.PipelineContext;
import dev.gantry.config.diag.Problems;
import dev.gantry.config.yaml.YNode;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Branch and tag filters of a workflow job, as CircleCI applies them.
 *
 * <p>A branch pipeline runs a job unless its {@code branches} filter excludes the branch. A tag pipeline runs a job
 * only if it has a {@code tags} filter that admits the tag. Each of {@code only} and {@code ignore} is one pattern or
 * a list: a literal name, or a {@code /regex/} that must match the whole value.
 */
final class Filters {
    private static final List<String> KEYS = List.of("branches", "tags");
    private static final List<String> RULE_KEYS = List.of("only", "ignore");

    /** A parsed filter; null rules are absent. */
    record Filter(Rule branches, Rule tags) {
        boolean admits(PipelineContext context) {
            if (context.isTag()) {
                return tags != null && tags.admits(context.tag());
            }
            return branches == null || branches.admits(context.branch());
        }
    }

    record Rule(List<Pattern> only, List<Pattern> ignore) {
        boolean admits(String value) {
            if (only != null && only.stream().noneMatch(p -> p.matcher(value).matches())) {
                return false;
            }
            return ignore == null || ignore.stream().noneMatch(p -> p.matcher(value).matches());
        }
    }

    private final Problems problems;

    Filters(Problems problems) {
        this.problems = problems;
    }

    /** The filter under {@code node}; no filter admits every branch and no tag. */
    Filter parse(YNode node, String path) {
        if (node == null) {
            return new Filter(null, null);
        }
        if (!(node instanceof YNode.MapNode map)) {
            problems.error(node.pos(), path, "filters must be a map with 'branches' and/or 'tags', not " + node.describe());
            return new Filter(null, null);
        }
        for (YNode.Entry e : map.entries()) {
            if (!KEYS.contains(e.name())) {
                problems.error(e.key().pos(), path + "." + e.name(), "unknown filter '" + e.name() + "'",
                        hint(e.name(), KEYS));
            }
        }
        return new Filter(rule(map.get("branches"), path + ".branches"), rule(map.get("tags"), path + ".tags"));
    }

    private Rule rule(YNode node, String path) {
        if (node == null) {
            return null;
        }
        if (!(node instanceof YNode.MapNode map)) {
            problems.error(node.pos(), path, "a filter must be a map with 'only' and/or 'ignore', not " + node.describe());
            return null;
        }
        for (YNode.Entry e : map.entries()) {
            if (!RULE_KEYS.contains(e.name())) {
                problems.error(e.key().pos(), path + "." + e.name(), "unknown filter key '" + e.name() + "'",
                        hint(e.name(), RULE_KEYS));
            }
        }
        return new Rule(patterns(map.get("only"), path + ".only"), patterns(map.get("ignore"), path + ".ignore"));
    }

    private List<Pattern> patterns(YNode node, String path) {
        if (node == null) {
            return null;
        }
        List<YNode> items = node instanceof YNode.SeqNode seq ? seq.items() : List.of(node);
        List<Pattern> out = new ArrayList<>(items.size());
        for (int i = 0; i < items.size(); i++) {
            YNode item = items.get(i);
            String itemPath = node instanceof YNode.SeqNode ? path + "[" + i + "]" : path;
            if (!(item instanceof YNode.Scalar s) || s.value() == null) {
                problems.error(item.pos(), itemPath, "a filter pattern must be a name or a /regex/, not "
                        + item.describe());
                continue;
            }
            String text = s.text();
            if (text.length() >= 2 && text.startsWith("/") && text.endsWith("/")) {
                try {
                    out.add(Pattern.compile(text.substring(1, text.length() - 1)));
                } catch (PatternSyntaxException e) {
                    problems.error(s.pos(), itemPath, "invalid regular expression " + text + ": " + e.getDescription());
                }
            } else {
                out.add(Pattern.compile(Pattern.quote(text)));
            }
        }
        return out;
    }

    private static String hint(String wrong, List<String> known) {
        String mean = Names.didYouMean(wrong, known);
        return mean != null ? mean : "expected " + Names.list(known);
    }
}
