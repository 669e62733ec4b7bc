package dev.gantry.config.yaml;

import dev.gantry.config.Limits;
import dev.gantry.config.diag.Problems;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.composer.Composer;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.parser.ParserImpl;
import org.yaml.snakeyaml.reader.StreamReader;
import org.yaml.snakeyaml.resolver.Resolver;

/**
 * Parses YAML 1.1 text into {@link YNode}s with 1-based positions, following aliases and merge keys.
 *
 * <p>Problems go to the given {@link Problems}; {@link #load} then returns null. Hostile input is bounded: the text
 * size, the nesting depth, and the number of nodes the document expands to once aliases are followed, which is
 * counted over shared subtrees without expanding them (so a billion-laughs document is rejected in linear time).
 */
public final class YamlLoader {
    private static final Pattern INT_DEC = Pattern.compile("[-+]?(0|[1-9][0-9_]*)");
    private static final Pattern CONTEXT = Pattern.compile("while (?:parsing|scanning) an? (.+)");
    private static final Resolver RESOLVER = new Resolver();

    private final Limits limits;
    private final Problems problems;
    private String file;
    private final Map<Node, YNode> converted = new IdentityHashMap<>();
    private final Map<Node, Long> sizes = new IdentityHashMap<>();
    private final Map<Node, Boolean> inProgress = new IdentityHashMap<>();
    private boolean failed;

    public YamlLoader(Limits limits, Problems problems) {
        this.limits = limits;
        this.problems = problems;
    }

    /** The document in {@code text}, or null when it could not be loaded (the reasons are in the problems). */
    public YNode load(String file, String text) {
        this.file = file;
        converted.clear();
        sizes.clear();
        inProgress.clear();
        failed = false;
        Pos start = new Pos(file, 1, 1);
        if (text.length() > limits.maxBytes() || text.getBytes(StandardCharsets.UTF_8).length > limits.maxBytes()) {
            problems.error(start, "", "file is larger than the limit of " + limits.maxBytes() + " bytes");
            return null;
        }
        Node root;
        try {
            LoaderOptions options = new LoaderOptions();
            options.setAllowDuplicateKeys(true); // reported by us, with both positions
            options.setMaxAliasesForCollections(Integer.MAX_VALUE); // bounded below by expanded size instead
            options.setNestingDepthLimit(limits.maxDepth() * 4); // the parser's own guard; ours, with a position, is below
            options.setCodePointLimit(Math.max(limits.maxBytes(), 1));
            options.setAllowRecursiveKeys(false);
            options.setProcessComments(false);
            Composer composer = new Composer(new ParserImpl(new StreamReader(text), options), RESOLVER, options);
            root = composer.getSingleNode();
        } catch (MarkedYAMLException e) {
            Mark mark = e.getProblemMark() != null ? e.getProblemMark() : e.getContextMark();
            problems.error(mark == null ? start : pos(mark), "", yamlMessage(e));
            return null;
        } catch (YAMLException e) {
            String message = firstLine(e.getMessage());
            problems.error(start, "", message.startsWith("Nesting Depth")
                    ? "YAML nesting is deeper than the limit of " + limits.maxDepth() : "invalid YAML: " + message);
            return null;
        } catch (StackOverflowError e) {
            problems.error(start, "", "YAML nesting is deeper than the limit of " + limits.maxDepth());
            return null;
        }
        if (root == null) {
            problems.error(start, "", "the file is empty");
            return null;
        }
        long size = expandedSize(root, 0);
        if (failed) {
            return null;
        }
        if (size > limits.maxNodes()) {
            problems.error(start, "", "the document expands to more than " + limits.maxNodes()
                    + " nodes once aliases are followed", "check for aliases that reference each other repeatedly");
            return null;
        }
        YNode out = convert(root, 0);
        return failed ? null : out;
    }

    private long expandedSize(Node node, int depth) {
        boolean shared = node.getAnchor() != null; // a cycle or a repeat always passes through an anchor
        Long known = shared ? sizes.get(node) : null;
        if (known != null) {
            return known;
        }
        if (shared && inProgress.containsKey(node)) {
            failed = true;
            problems.error(pos(node.getStartMark()), "", "an alias refers to a node that contains it (recursive alias)");
            return 0;
        }
        if (depth > limits.maxDepth() * 4) {
            failed = true;
            problems.error(pos(node.getStartMark()), "", "YAML nesting through aliases is deeper than the limit of "
                    + limits.maxDepth() * 4);
            return 0;
        }
        if (shared) {
            inProgress.put(node, Boolean.TRUE);
        }
        long size = 1;
        if (node instanceof MappingNode m) {
            for (NodeTuple t : m.getValue()) {
                size = saturatingAdd(size, expandedSize(t.getKeyNode(), depth + 1));
                size = saturatingAdd(size, expandedSize(t.getValueNode(), depth + 1));
                if (failed) {
                    break;
                }
            }
        } else if (node instanceof SequenceNode s) {
            for (Node item : s.getValue()) {
                size = saturatingAdd(size, expandedSize(item, depth + 1));
                if (failed) {
                    break;
                }
            }
        }
        if (shared) {
            inProgress.remove(node);
            sizes.put(node, size);
        }
        return size;
    }

    private static long saturatingAdd(long a, long b) {
        long r = a + b;
        return r < 0 ? Long.MAX_VALUE : r;
    }

    private YNode convert(Node node, int depth) {
        if (depth > limits.maxDepth() && !(node instanceof ScalarNode)) {
            if (!failed) {
                problems.error(pos(node.getStartMark()), "", "YAML nesting is deeper than the limit of "
                        + limits.maxDepth());
            }
            failed = true;
            return new YNode.Scalar(null, "", pos(node.getStartMark()));
        }
        boolean shared = node.getAnchor() != null; // only anchored nodes can be reached twice, through aliases
        YNode done = shared ? converted.get(node) : null;
        if (done != null) {
            return done;
        }
        YNode out = switch (node) {
            case ScalarNode s -> scalar(s);
            case SequenceNode s -> {
                List<YNode> items = new ArrayList<>(s.getValue().size());
                for (Node item : s.getValue()) {
                    items.add(convert(item, depth + 1));
                }
                yield new YNode.SeqNode(items, pos(s.getStartMark()));
            }
            case MappingNode m -> map(m, depth);
            default -> throw new IllegalStateException("unknown YAML node " + node.getClass());
        };
        if (shared) {
            converted.put(node, out);
        }
        return out;
    }

    private YNode.MapNode map(MappingNode m, int depth) {
        Map<String, YNode.Entry> explicit = new LinkedHashMap<>();
        List<Object> order = new ArrayList<>(); // keys in document order, or merge sources at their place
        for (NodeTuple t : m.getValue()) {
            Node keyNode = t.getKeyNode();
            if (keyNode.getTag().equals(Tag.MERGE)) {
                order.add(t.getValueNode());
                continue;
            }
            if (!(keyNode instanceof ScalarNode)) {
                problems.error(pos(keyNode.getStartMark()), "", "map keys must be plain values, not "
                        + (keyNode instanceof MappingNode ? "a map" : "a list"));
                failed = true;
                continue;
            }
            YNode.Scalar key = scalar((ScalarNode) keyNode);
            YNode.Entry previous = explicit.get(key.text());
            if (previous != null) {
                problems.warning(key.pos(), "", "duplicate key '" + key.text() + "' replaces the one at line "
                        + previous.key().pos().line(), "remove one of them");
            }
            explicit.put(key.text(), new YNode.Entry(key, convert(t.getValueNode(), depth + 1)));
            if (previous == null) {
                order.add(key.text());
            }
        }
        List<YNode.Entry> entries = new ArrayList<>(explicit.size());
        Map<String, Boolean> seen = new HashMap<>();
        for (Object o : order) {
            if (o instanceof String key) {
                entries.add(explicit.get(key));
                seen.put(key, Boolean.TRUE);
                continue;
            }
            Node source = (Node) o;
            List<Node> sources = source instanceof SequenceNode s ? s.getValue() : List.of(source);
            for (Node src : sources) {
                YNode merged = convert(src, depth);
                if (!(merged instanceof YNode.MapNode mm)) {
                    problems.error(pos(src.getStartMark()), "", "a merge key (<<) needs a map or a list of maps, not "
                            + merged.describe());
                    failed = true;
                    continue;
                }
                for (YNode.Entry e : mm.entries()) {
                    if (!explicit.containsKey(e.name()) && seen.putIfAbsent(e.name(), Boolean.TRUE) == null) {
                        entries.add(e);
                    }
                }
            }
        }
        return new YNode.MapNode(entries, pos(m.getStartMark()));
    }

    private YNode.Scalar scalar(ScalarNode s) {
        Pos pos = pos(s.getStartMark());
        String text = s.getValue();
        Tag tag = s.getTag();
        Object value;
        if (tag.equals(Tag.STR)) {
            value = text;
        } else if (tag.equals(Tag.NULL)) {
            value = null;
        } else if (tag.equals(Tag.BOOL)) {
            value = bool(text);
        } else if (tag.equals(Tag.INT)) {
            value = integer(text);
        } else if (tag.equals(Tag.FLOAT)) {
            value = floating(text);
        } else {
            value = text; // timestamps, binary and custom tags stay text: CircleCI treats them so
        }
        return new YNode.Scalar(value, text, pos);
    }

    private static Object bool(String text) {
        return switch (text.toLowerCase(java.util.Locale.ROOT)) {
            case "true", "yes", "on", "y" -> Boolean.TRUE;
            case "false", "no", "off", "n" -> Boolean.FALSE;
            default -> text;
        };
    }

    private static Object integer(String text) {
        String t = text.replace("_", "");
        try {
            if (INT_DEC.matcher(text).matches()) {
                return Long.parseLong(t);
            }
            boolean negative = t.startsWith("-");
            String digits = t.startsWith("-") || t.startsWith("+") ? t.substring(1) : t;
            long v;
            if (digits.startsWith("0x")) {
                v = Long.parseLong(digits.substring(2), 16);
            } else if (digits.startsWith("0b")) {
                v = Long.parseLong(digits.substring(2), 2);
            } else if (digits.startsWith("0") && digits.length() > 1 && !digits.contains(":")) {
                v = Long.parseLong(digits.substring(1), 8);
            } else {
                return text; // sexagesimal and other rarities stay text
            }
            return negative ? -v : v;
        } catch (NumberFormatException e) {
            return text;
        }
    }

    private static Object floating(String text) {
        String t = text.replace("_", "").toLowerCase(java.util.Locale.ROOT);
        try {
            return switch (t) {
                case ".inf", "+.inf" -> Double.POSITIVE_INFINITY;
                case "-.inf" -> Double.NEGATIVE_INFINITY;
                case ".nan" -> Double.NaN;
                default -> Double.parseDouble(t);
            };
        } catch (NumberFormatException e) {
            return text;
        }
    }

    private Pos pos(Mark mark) {
        return new Pos(file, mark.getLine() + 1, mark.getColumn() + 1);
    }

    private static String yamlMessage(MarkedYAMLException e) {
        StringBuilder msg = new StringBuilder("invalid YAML: ");
        if (e.getContext() != null) {
            msg.append(e.getContext()).append(", ");
        }
        msg.append(firstLine(e.getProblem()));
        String text = msg.toString().replaceAll("\\s+", " ").trim();
        String began = contextStart(e);
        return began == null ? text : text + " (" + began + ")";
    }

    /**
     * Where the construct that broke began, as "the flow sequence began at 4:13": the parser notices a problem only
     * where it can no longer go on, often lines after the real mistake (an unclosed bracket or quote). Null when
     * SnakeYAML gave no separate place.
     */
    public static String contextStart(MarkedYAMLException e) {
        Mark context = e.getContextMark();
        Mark problem = e.getProblemMark();
        if (context == null || e.getContext() == null || problem == null
                || (context.getLine() == problem.getLine() && context.getColumn() == problem.getColumn())) {
            return null;
        }
        String at = (context.getLine() + 1) + ":" + (context.getColumn() + 1);
        // SnakeYAML's contexts read "while parsing a block mapping" / "while scanning a quoted scalar".
        Matcher m = CONTEXT.matcher(e.getContext());
        return m.matches() ? "the " + m.group(1).trim() + " began at " + at : "see " + at;
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "unknown problem";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
