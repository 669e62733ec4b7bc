package dev.gantry.config.expand;

import dev.gantry.config.diag.Problems;
import dev.gantry.config.yaml.YNode;
import java.util.List;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Evaluates CircleCI logic statements ({@code and}, {@code or}, {@code not}, {@code equal}, {@code matches}) and the
 * truthiness of plain values, after substitution.
 *
 * <p>Falsy: false, null, 0, NaN, the empty string, an empty list, and statements with no arguments. {@code matches}
 * searches its {@code value} for {@code pattern} (anchor with ^ and $ to match the whole value). A malformed statement
 * is an error and counts as false.
 */
final class Logic {
    private static final List<String> OPERATORS = List.of("and", "or", "not", "equal", "matches");

    private final Problems problems;

    Logic(Problems problems) {
        this.problems = problems;
    }

    boolean eval(YNode node, String path) {
        if (node instanceof YNode.Scalar) {
            return truthy(node);
        }
        if (node instanceof YNode.SeqNode seq) {
            if (seq.items().stream().anyMatch(Logic::isStatement)) {
                problems.error(seq.pos(), path, "a condition is a value or one of " + Names.list(OPERATORS)
                        + ", not a list", "combine conditions with 'and: [...]' or 'or: [...]'");
                return false;
            }
            // A list value, such as a steps parameter (the docker orb's 'condition: <<parameters.after_checkout>>'),
            // is true when it has items, as in CircleCI.
            return !seq.items().isEmpty();
        }
        YNode.MapNode map = (YNode.MapNode) node;
        if (map.size() != 1) {
            problems.error(map.pos(), path, "a logic statement has exactly one key, one of " + Names.list(OPERATORS)
                    + "; found " + Names.list(map.keys()));
            return false;
        }
        YNode.Entry e = map.entries().get(0);
        String op = e.name();
        String opPath = path + "." + op;
        YNode arg = e.value();
        switch (op) {
            case "and", "or" -> {
                List<YNode> args = list(arg, opPath, op);
                if (args == null || args.isEmpty()) {
                    return false;
                }
                boolean and = op.equals("and");
                boolean result = and;
                for (int i = 0; i < args.size(); i++) {
                    boolean v = eval(args.get(i), opPath + "[" + i + "]");
                    result = and ? result && v : result || v;
                }
                return result;
            }
            case "not" -> {
                return !eval(arg, opPath);
            }
            case "equal" -> {
                List<YNode> args = list(arg, opPath, op);
                if (args == null || args.isEmpty()) {
                    return false;
                }
                for (int i = 1; i < args.size(); i++) {
                    if (!same(args.get(0), args.get(i))) {
                        return false;
                    }
                }
                return true;
            }
            case "matches" -> {
                return matches(arg, opPath);
            }
            default -> {
                problems.error(e.key().pos(), opPath, "unknown logic statement '" + op + "'",
                        hintFor(op));
                return false;
            }
        }
    }

    private static boolean isStatement(YNode item) {
        return item instanceof YNode.MapNode m && m.size() == 1 && OPERATORS.contains(m.entries().get(0).name());
    }

    private static String hintFor(String op) {
        String mean = Names.didYouMean(op, OPERATORS);
        return mean != null ? mean : "use one of " + Names.list(OPERATORS);
    }

    private boolean matches(YNode arg, String path) {
        if (!(arg instanceof YNode.MapNode m) || !(m.get("pattern") instanceof YNode.Scalar pattern)
                || !(m.get("value") instanceof YNode.Scalar value)) {
            problems.error(arg.pos(), path, "'matches' needs a map with 'pattern' and 'value'",
                    "matches: {pattern: \"^main$\", value: << pipeline.git.branch >>}");
            return false;
        }
        for (YNode.Entry e : m.entries()) {
            if (!e.name().equals("pattern") && !e.name().equals("value")) {
                problems.error(e.key().pos(), path + "." + e.name(), "'matches' takes only 'pattern' and 'value'",
                        Names.didYouMean(e.name(), List.of("pattern", "value")));
            }
        }
        try {
            return Pattern.compile(pattern.text()).matcher(value.value() == null ? "" : value.text()).find();
        } catch (PatternSyntaxException ex) {
            problems.error(pattern.pos(), path + ".pattern", "invalid regular expression: " + ex.getDescription());
            return false;
        }
    }

    private List<YNode> list(YNode arg, String path, String op) {
        if (arg instanceof YNode.SeqNode seq) {
            return seq.items();
        }
        problems.error(arg.pos(), path, "'" + op + "' needs a list of arguments, not " + arg.describe());
        return null;
    }

    /** Scalars compare by type and value, integers and decimals numerically; collections structurally. */
    static boolean same(YNode a, YNode b) {
        if (a instanceof YNode.Scalar x && b instanceof YNode.Scalar y) {
            if (x.value() instanceof Number n && y.value() instanceof Number m) {
                return n.doubleValue() == m.doubleValue();
            }
            return java.util.Objects.equals(x.value(), y.value());
        }
        if (a instanceof YNode.SeqNode x && b instanceof YNode.SeqNode y) {
            if (x.items().size() != y.items().size()) {
                return false;
            }
            for (int i = 0; i < x.items().size(); i++) {
                if (!same(x.items().get(i), y.items().get(i))) {
                    return false;
                }
            }
            return true;
        }
        if (a instanceof YNode.MapNode x && b instanceof YNode.MapNode y) {
            if (x.size() != y.size()) {
                return false;
            }
            for (YNode.Entry e : x.entries()) {
                YNode other = y.get(e.name());
                if (other == null || !same(e.value(), other)) {
                    return false;
                }
            }
            return true;
        }
        return false;
    }

    /** CircleCI's truthiness of a plain value. */
    static boolean truthy(YNode node) {
        if (!(node instanceof YNode.Scalar s)) {
            return node instanceof YNode.SeqNode seq ? !seq.items().isEmpty() : !((YNode.MapNode) node).isEmpty();
        }
        Object v = s.value();
        if (v == null) {
            return false;
        }
        return switch (v) {
            case Boolean b -> b;
            case Long l -> l != 0;
            case Double d -> d != 0 && !d.isNaN();
            default -> !v.toString().isEmpty();
        };
    }
}
