package dev.gantry.scheduler.fleet;

import dev.gantry.scheduler.Instance;
import dev.gantry.scheduler.InstanceType;
import dev.gantry.scheduler.OrgLimits;
import dev.gantry.scheduler.ResourceClass;
import dev.gantry.scheduler.ResourceClasses;
import dev.gantry.scheduler.Resources;
import java.io.StringReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
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
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;

/**
 * Reads a fleet file from SnakeYAML's node tree, which keeps every value's position, and collects every problem
 * before failing so an operator fixes the file in one go. One parser per file; not thread-safe.
 */
final class FleetConfigParser {
    private static final Pattern DURATION = Pattern.compile("(\\d+)(ms|s|m|h)");
    private static final Set<String> TOP_KEYS = Set.of("clusters", "pins", "scale_in_after", "unavailable_for",
            "provision_timeout", "lost_after", "resource_classes", "org_limits");
    private static final Set<String> CLASS_KEYS = Set.of("name", "vcpu", "memory_gb", "disk_gb", "credits_per_minute");
    private static final Set<String> CLUSTER_KEYS = Set.of("name", "pool", "min", "max", "types");
    private static final Set<String> TYPE_KEYS = Set.of("name", "vcpu", "memory_gb", "disk_gb", "cost_per_hour");

    private final String file;
    private final List<FleetConfigException.Problem> problems = new ArrayList<>();

    FleetConfigParser(String file) {
        this.file = file;
    }

    FleetConfig parse(String text) {
        Node root = compose(text);
        if (root == null) {
            throw new FleetConfigException(problems);
        }
        return parse(root);
    }

    /** The fleet of an already composed node, whose marks are positions in {@code file}. */
    FleetConfig parse(Node root) {
        Map<String, Node> top = fields(root, TOP_KEYS, "the fleet file");
        Duration scaleInAfter = duration(top.get("scale_in_after"), FleetConfig.DEFAULT_SCALE_IN_AFTER);
        Duration unavailableFor = duration(top.get("unavailable_for"), FleetConfig.DEFAULT_UNAVAILABLE_FOR);
        Duration provisionTimeout = duration(top.get("provision_timeout"), FleetConfig.DEFAULT_PROVISION_TIMEOUT);
        Duration lostAfter = duration(top.get("lost_after"), FleetConfig.DEFAULT_LOST_AFTER);
        if (provisionTimeout.isZero()) {
            problem(top.get("provision_timeout"), "'provision_timeout' must be longer than 0");
        }
        List<Cluster> clusters = new ArrayList<>();
        Map<String, Node> clusterNames = new HashMap<>();
        Node clustersNode = top.get("clusters");
        if (clustersNode == null) {
            problem(root, "'clusters' is missing: a fleet needs at least one cluster");
        } else if (clustersNode instanceof SequenceNode seq && !seq.getValue().isEmpty()) {
            for (Node c : seq.getValue()) {
                Cluster cluster = cluster(c);
                if (cluster != null && clusterNames.putIfAbsent(cluster.name(), c) != null) {
                    problem(c, "cluster '" + cluster.name() + "' is defined twice (first at line "
                            + line(clusterNames.get(cluster.name())) + ")");
                } else if (cluster != null) {
                    clusters.add(cluster);
                }
            }
        } else {
            problem(clustersNode, "'clusters' must be a non-empty list of clusters");
        }
        Map<String, String> pins = pins(top.get("pins"), clusters);
        ResourceClasses classes = resourceClasses(top.get("resource_classes"));
        OrgLimits limits = orgLimits(top.get("org_limits"));
        if (!problems.isEmpty()) {
            throw new FleetConfigException(problems);
        }
        return new FleetConfig(clusters, pins, scaleInAfter, unavailableFor, provisionTimeout, lostAfter, classes,
                limits);
    }

    /** The classes the file lists, which replace the default table; the defaults when it lists none. */
    private ResourceClasses resourceClasses(Node node) {
        if (node == null) {
            return ResourceClasses.defaults();
        }
        if (!(node instanceof SequenceNode seq) || seq.getValue().isEmpty()) {
            problem(node, "'resource_classes' must be a non-empty list of classes, got " + describe(node));
            return ResourceClasses.defaults();
        }
        List<ResourceClass> classes = new ArrayList<>();
        Map<String, Node> seen = new HashMap<>();
        for (Node c : seq.getValue()) {
            int before = problems.size();
            Map<String, Node> f = fields(c, CLASS_KEYS, "a resource class");
            String name = requiredText(c, f, "name", "resource class");
            String where = "resource class '" + (name == null ? "?" : name) + "'";
            int vcpu = requiredInt(c, f, "vcpu", where);
            int memoryGb = requiredInt(c, f, "memory_gb", where);
            int diskGb = requiredInt(c, f, "disk_gb", where);
            int credits = f.containsKey("credits_per_minute") ? integer(f.get("credits_per_minute"),
                    "credits_per_minute", 0) : 0;
            if (name != null && seen.putIfAbsent(name, c) != null) {
                problem(c, where + " is defined twice (first at line " + line(seen.get(name)) + ")");
            } else if (problems.size() == before && name != null) {
                classes.add(new ResourceClass(name, vcpu, memoryGb * 1024, diskGb, credits));
            }
        }
        return classes.isEmpty() ? ResourceClasses.defaults() : ResourceClasses.of(classes);
    }

    /** Organisation name → the most jobs it may run at once. */
    private OrgLimits orgLimits(Node node) {
        if (node == null) {
            return OrgLimits.NONE;
        }
        if (!(node instanceof MappingNode map)) {
            problem(node, "'org_limits' must map organisations to the most jobs each may run at once, like acme: 20; "
                    + "got " + describe(node));
            return OrgLimits.NONE;
        }
        Map<String, Integer> limits = new LinkedHashMap<>();
        for (NodeTuple t : map.getValue()) {
            String org = text(t.getKeyNode(), "an organisation");
            int max = integer(t.getValueNode(), "org_limits." + org, 0);
            if (org != null) {
                limits.put(org, max);
            }
        }
        return new OrgLimits(limits);
    }

    private Node compose(String text) {
        try {
            LoaderOptions options = new LoaderOptions();
            options.setAllowDuplicateKeys(false);
            options.setMaxAliasesForCollections(50);
            Node root = new Yaml(options).compose(new StringReader(text));
            if (root == null) {
                problems.add(new FleetConfigException.Problem(file, 1, 1, "the fleet file is empty"));
            }
            return root;
        } catch (MarkedYAMLException e) {
            Mark mark = e.getProblemMark() != null ? e.getProblemMark() : e.getContextMark();
            String what = (e.getContext() == null ? "" : e.getContext() + ", ") + e.getProblem();
            problems.add(new FleetConfigException.Problem(file, mark == null ? 1 : mark.getLine() + 1,
                    mark == null ? 1 : mark.getColumn() + 1, "invalid YAML: " + what.replaceAll("\\s+", " ").trim()));
            return null;
        } catch (YAMLException e) {
            problems.add(new FleetConfigException.Problem(file, 1, 1, "invalid YAML: " + e.getMessage()));
            return null;
        }
    }

    private Cluster cluster(Node node) {
        int before = problems.size();
        Map<String, Node> f = fields(node, CLUSTER_KEYS, "a cluster");
        if (problems.size() > before && f.isEmpty()) {
            return null;
        }
        String name = requiredText(node, f, "name", "cluster");
        String where = "cluster '" + (name == null ? "?" : name) + "'";
        String pool = f.containsKey("pool") ? text(f.get("pool"), "pool") : Instance.DEFAULT_POOL;
        int min = f.containsKey("min") ? integer(f.get("min"), "min", 0) : 0;
        int max = f.containsKey("max") ? integer(f.get("max"), "max", 1) : -1;
        if (!f.containsKey("max")) {
            problem(node, where + " needs 'max', the most instances it may run");
        } else if (min > max && max > 0) {
            problem(f.get("min"), where + " has min " + min + " above its max " + max);
        }
        List<RankedType> types = new ArrayList<>();
        Node typesNode = f.get("types");
        if (typesNode instanceof SequenceNode seq && !seq.getValue().isEmpty()) {
            Map<String, Node> seen = new HashMap<>();
            for (Node t : seq.getValue()) {
                RankedType type = type(t);
                if (type != null && seen.putIfAbsent(type.name(), t) != null) {
                    problem(t, where + " lists instance type '" + type.name() + "' twice (first at line "
                            + line(seen.get(type.name())) + ")");
                } else if (type != null) {
                    types.add(type);
                }
            }
        } else {
            problem(typesNode == null ? node : typesNode, where
                    + " needs 'types', a non-empty list of instance types in the order to try them");
        }
        if (problems.size() > before || name == null || pool == null) {
            return null;
        }
        return new Cluster(name, pool, types, min, max);
    }

    private RankedType type(Node node) {
        int before = problems.size();
        Map<String, Node> f = fields(node, TYPE_KEYS, "an instance type");
        String name = requiredText(node, f, "name", "instance type");
        String where = "instance type '" + (name == null ? "?" : name) + "'";
        int vcpu = requiredInt(node, f, "vcpu", where);
        int memoryGb = requiredInt(node, f, "memory_gb", where);
        int diskGb = requiredInt(node, f, "disk_gb", where);
        double cost = 0;
        if (f.containsKey("cost_per_hour")) {
            Node c = f.get("cost_per_hour");
            try {
                cost = Double.parseDouble(scalar(c));
                if (!(cost >= 0)) {
                    problem(c, "'cost_per_hour' must be a number of at least 0, got '" + scalar(c) + "'");
                }
            } catch (NumberFormatException | NullPointerException e) {
                problem(c, "'cost_per_hour' must be a number of at least 0, got " + describe(c));
            }
        }
        if (problems.size() > before || name == null) {
            return null;
        }
        return new RankedType(new InstanceType(name, new Resources(vcpu, memoryGb * 1024, diskGb)), cost);
    }

    private Map<String, String> pins(Node node, List<Cluster> clusters) {
        Map<String, String> pins = new LinkedHashMap<>();
        if (node == null) {
            return pins;
        }
        if (!(node instanceof MappingNode map)) {
            problem(node, "'pins' must map images to pools, like \"xcode:*\": macos; got " + describe(node));
            return pins;
        }
        for (NodeTuple t : map.getValue()) {
            String image = text(t.getKeyNode(), "an image");
            String pool = text(t.getValueNode(), "the pool of image " + image);
            if (image == null || pool == null) {
                continue;
            }
            if (clusters.stream().noneMatch(c -> c.pool().equals(pool))) {
                problem(t.getValueNode(), "image '" + image + "' is pinned to pool '" + pool
                        + "', which no cluster serves; pools served: "
                        + String.join(", ", clusters.stream().map(Cluster::pool).distinct().toList()));
            }
            pins.put(image, pool);
        }
        return pins;
    }

    /** The keys of a map node, each checked against the known ones. */
    private Map<String, Node> fields(Node node, Set<String> known, String what) {
        Map<String, Node> out = new LinkedHashMap<>();
        if (!(node instanceof MappingNode map)) {
            problem(node, what + " must be a map, got " + describe(node));
            return out;
        }
        for (NodeTuple t : map.getValue()) {
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

    private String requiredText(Node parent, Map<String, Node> f, String key, String what) {
        if (!f.containsKey(key)) {
            problem(parent, "a " + what + " needs '" + key + "'");
            return null;
        }
        return text(f.get(key), key);
    }

    private int requiredInt(Node parent, Map<String, Node> f, String key, String where) {
        if (!f.containsKey(key)) {
            problem(parent, where + " needs '" + key + "'");
            return 1;
        }
        return integer(f.get(key), key, 1);
    }

    private String text(Node node, String what) {
        String s = scalar(node);
        if (s == null || s.isBlank()) {
            problem(node, what + " must be a non-empty text, got " + describe(node));
            return null;
        }
        return s;
    }

    private int integer(Node node, String key, int atLeast) {
        String s = scalar(node);
        try {
            int v = Integer.parseInt(s);
            if (v >= atLeast) {
                return v;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        problem(node, "'" + key + "' must be a whole number of at least " + atLeast + ", got "
                + (s == null ? describe(node) : "'" + s + "'"));
        return atLeast;
    }

    private Duration duration(Node node, Duration fallback) {
        if (node == null) {
            return fallback;
        }
        String s = scalar(node);
        Matcher m = s == null ? null : DURATION.matcher(s.trim());
        if (m == null || !m.matches()) {
            problem(node, "a duration is a whole number and a unit (ms, s, m or h), like 5m; got "
                    + (s == null ? describe(node) : "'" + s + "'"));
            return fallback;
        }
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            default -> Duration.ofHours(n);
        };
    }

    private static String scalar(Node node) {
        return node instanceof ScalarNode s ? s.getValue() : null;
    }

    private static String describe(Node node) {
        return switch (node) {
            case ScalarNode s -> "'" + s.getValue() + "'";
            case SequenceNode s -> "a list";
            case MappingNode m -> "a map";
            default -> "a " + node.getNodeId();
        };
    }

    private static int line(Node node) {
        return node.getStartMark().getLine() + 1;
    }

    private void problem(Node node, String message) {
        Mark mark = node.getStartMark();
        problems.add(new FleetConfigException.Problem(file, mark.getLine() + 1, mark.getColumn() + 1, message));
    }
}
