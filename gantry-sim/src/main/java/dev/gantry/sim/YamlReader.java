package dev.gantry.sim;

import dev.gantry.scheduler.fleet.FleetConfigException.Problem;
import java.io.StringReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;

/**
 * Typed reads of SnakeYAML nodes that record a problem at the node's 1-based line and column instead of throwing,
 * so a reader reports every problem of a file at once. A method that finds a problem returns a placeholder (null,
 * or the least allowed value) and the caller goes on. One per file; not thread-safe.
 */
final class YamlReader {
    /** Parts of a duration: the fleet file's whole number and unit, which a scenario may chain, like 2h15m. */
    private static final Pattern DURATION_PART = Pattern.compile("(\\d+)(ms|s|m|h)");
    private static final Pattern DURATION = Pattern.compile("(\\d+(ms|s|m|h))+");

    private final String file;
    private final List<Problem> problems = new ArrayList<>();

    YamlReader(String file) {
        this.file = file;
    }

    /** The file named in problems. */
    String file() {
        return file;
    }

    /** Every problem so far, in the order found; callers may add their own. */
    List<Problem> problems() {
        return problems;
    }

    /** The root node of {@code text}, or null (with a problem) when it is empty or not YAML. */
    Node compose(String text) {
        try {
            LoaderOptions options = new LoaderOptions();
            options.setAllowDuplicateKeys(false);
            options.setMaxAliasesForCollections(50);
            Node root = new Yaml(options).compose(new StringReader(text));
            if (root == null) {
                problems.add(new Problem(file, 1, 1, "the file is empty"));
            }
            return root;
        } catch (MarkedYAMLException e) {
            Mark mark = e.getProblemMark() != null ? e.getProblemMark() : e.getContextMark();
            String what = (e.getContext() == null ? "" : e.getContext() + ", ") + e.getProblem();
            problems.add(new Problem(file, mark == null ? 1 : mark.getLine() + 1,
                    mark == null ? 1 : mark.getColumn() + 1, "invalid YAML: " + what.replaceAll("\\s+", " ").trim()));
            return null;
        } catch (YAMLException e) {
            problems.add(new Problem(file, 1, 1, "invalid YAML: " + e.getMessage()));
            return null;
        }
    }

    /** The entries of a map node whose keys are known; an unknown key is a problem listing the known ones. */
    Map<String, Node> fields(Node node, Set<String> known, String what) {
        Map<String, Node> out = new LinkedHashMap<>();
        if (!(node instanceof MappingNode map)) {
            problem(node, what + " must be a map, got " + describe(node));
            return out;
        }
        for (var t : map.getValue()) {
            String key = scalar(t.getKeyNode());
            if (key == null || !known.contains(key)) {
                problem(t.getKeyNode(), "unknown key " + (key == null ? describe(t.getKeyNode()) : "'" + key + "'")
                        + " in " + what + "; known keys: " + String.join(", ", known.stream().sorted().toList()));
            } else {
                out.put(key, t.getValueNode());
            }
        }
        return out;
    }

    /** The items of a list node; none for an absent one. */
    List<Node> list(Node node, String what) {
        if (node == null) {
            return List.of();
        }
        if (node instanceof SequenceNode seq) {
            return seq.getValue();
        }
        problem(node, what + " must be a list, got " + describe(node));
        return List.of();
    }

    /** The text under {@code key}, or null with a problem when it is missing or empty. */
    String requiredText(Node parent, Map<String, Node> f, String key, String what) {
        if (!f.containsKey(key)) {
            problem(parent, what + " needs '" + key + "'");
            return null;
        }
        return text(f.get(key), key);
    }

    /** The duration under {@code key}, or null with a problem when it is missing or malformed. */
    Duration required(Node parent, Map<String, Node> f, String key, String what) {
        if (!f.containsKey(key)) {
            problem(parent, what + " needs '" + key + "', a duration like 90s or 5h");
            return null;
        }
        return duration(f.get(key));
    }

    /** A non-empty scalar, or null with a problem. */
    String text(Node node, String what) {
        String s = scalar(node);
        if (s == null || s.isBlank()) {
            problem(node, "'" + what + "' must be a non-empty text, got " + describe(node));
            return null;
        }
        return s;
    }

    /** A whole number of at least {@code atLeast}, else a problem. */
    int integer(Node node, String key, int atLeast) {
        String s = scalar(node);
        try {
            int v = Integer.parseInt(s);
            if (v >= atLeast) {
                return v;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        problem(node, "'" + key + "' must be a whole number of at least " + atLeast + ", got " + describe(node));
        return atLeast;
    }

    /** A finite number of at least 0, else a problem. */
    double number(Node node, String key) {
        String s = scalar(node);
        try {
            double v = Double.parseDouble(s);
            if (v >= 0 && Double.isFinite(v)) {
                return v;
            }
        } catch (NumberFormatException | NullPointerException e) {
            // reported below
        }
        problem(node, "'" + key + "' must be a number of at least 0, got " + describe(node));
        return 0;
    }

    /** A duration longer than 0, else a problem. */
    Duration positive(Node node) {
        Duration d = duration(node);
        if (d != null && !d.isPositive()) {
            problem(node, "the duration must be longer than 0");
            return Duration.ofSeconds(1);
        }
        return d;
    }

    /** Whole numbers with units ms, s, m or h, chained (90s, 2h15m); null with a problem otherwise. */
    Duration duration(Node node) {
        String s = scalar(node);
        if (s == null || !DURATION.matcher(s.trim()).matches()) {
            problem(node, "a duration is whole numbers with units (ms, s, m or h), like 90s or 2h15m; got "
                    + describe(node));
            return null;
        }
        Duration total = Duration.ZERO;
        Matcher m = DURATION_PART.matcher(s.trim());
        while (m.find()) {
            long n = Long.parseLong(m.group(1));
            total = total.plus(switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                default -> Duration.ofHours(n);
            });
        }
        return total;
    }

    /** The value of a scalar node, or null for any other node. */
    static String scalar(Node node) {
        return node instanceof ScalarNode s ? s.getValue() : null;
    }

    /** A node as messages quote it. */
    static String describe(Node node) {
        return switch (node) {
            case ScalarNode s -> "'" + s.getValue() + "'";
            case SequenceNode s -> "a list";
            case MappingNode m -> "a map";
            default -> "a " + node.getNodeId();
        };
    }

    /** Records {@code message} at the node's 1-based line and column. */
    void problem(Node node, String message) {
        Mark mark = node.getStartMark();
        problems.add(new Problem(file, mark.getLine() + 1, mark.getColumn() + 1, message));
    }
}
