package dev.gantry.sim;

import dev.gantry.scheduler.ResourceClass;
import dev.gantry.scheduler.ResourceClasses;
import dev.gantry.scheduler.fleet.FleetConfig;
import dev.gantry.scheduler.fleet.FleetConfigException;
import dev.gantry.scheduler.fleet.FleetConfigException.Problem;
import dev.gantry.sim.Scenario.Arrivals;
import dev.gantry.sim.Scenario.Baseline;
import dev.gantry.sim.Scenario.CapacityChange;
import dev.gantry.sim.Scenario.Cloud;
import dev.gantry.sim.Scenario.Spike;
import dev.gantry.sim.Scenario.Spread;
import dev.gantry.sim.Scenario.TypeLatency;
import dev.gantry.sim.Scenario.Workload;
import java.io.StringReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
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
 * Reads a scenario file from SnakeYAML's node tree, so every problem names its file:line:column (1-based), and
 * collects every problem before failing. The {@code fleet} section is read by the server's own fleet parser.
 * One reader per file; not thread-safe.
 */
public final class ScenarioReader {
    /** Parts of a duration: the fleet file's whole number and unit, which a scenario may chain, like 2h15m. */
    private static final Pattern DURATION_PART = Pattern.compile("(\\d+)(ms|s|m|h)");
    private static final Pattern DURATION = Pattern.compile("(\\d+(ms|s|m|h))+");
    private static final Set<String> TOP_KEYS = Set.of("name", "description", "run_for", "warm_up", "tick", "sample_every",
            "fleet", "cloud", "workloads", "baseline");
    private static final Set<String> CLOUD_KEYS = Set.of("latency", "type_latency", "failure_probability",
            "capacity");
    private static final Set<String> SPREAD_KEYS = Set.of("median", "p95");
    private static final Set<String> TYPE_LATENCY_KEYS = Set.of("type", "median", "p95");
    private static final Set<String> CAPACITY_KEYS = Set.of("at", "cluster", "type", "limit");
    private static final Set<String> WORKLOAD_KEYS = Set.of("name", "class", "image", "arrivals", "duration");
    private static final Set<String> ARRIVAL_KEYS = Set.of("process", "per_hour", "diurnal_amplitude",
            "diurnal_peak", "spikes");
    private static final Set<String> SPIKE_KEYS = Set.of("from", "until", "per_hour");
    private static final Set<String> BASELINE_KEYS = Set.of("jobs_per_instance");

    private final String file;
    private final ResourceClasses classes;
    private final List<Problem> problems = new ArrayList<>();

    /** A reader of {@code file} (named in messages) whose workloads name classes of {@code classes}. */
    public ScenarioReader(String file, ResourceClasses classes) {
        this.file = file;
        this.classes = classes;
    }

    /** The scenario in YAML {@code text}, with the default resource classes. */
    public static Scenario read(String file, String text) {
        return new ScenarioReader(file, ResourceClasses.defaults()).parse(text);
    }

    /** @throws ScenarioException listing every problem */
    public Scenario parse(String text) {
        Node root = compose(text);
        if (root == null) {
            throw new ScenarioException(problems);
        }
        Map<String, Node> top = fields(root, TOP_KEYS, "the scenario");
        String name = top.containsKey("name") ? text(top.get("name"), "name") : null;
        if (!top.containsKey("name")) {
            problem(root, "the scenario needs 'name'");
        }
        String description = top.containsKey("description") ? text(top.get("description"), "description") : "";
        Duration runFor = required(root, top, "run_for", "the scenario");
        Duration warmUp = top.containsKey("warm_up") ? duration(top.get("warm_up")) : Duration.ZERO;
        Duration tick = top.containsKey("tick") ? positive(top.get("tick")) : Duration.ofSeconds(5);
        Duration sampleEvery = top.containsKey("sample_every") ? positive(top.get("sample_every"))
                : Duration.ofMinutes(5);
        FleetConfig fleet = null;
        if (!top.containsKey("fleet")) {
            problem(root, "the scenario needs 'fleet', in the format of the server's fleet file");
        } else {
            try {
                fleet = FleetConfig.parse(file, top.get("fleet"));
            } catch (FleetConfigException e) {
                problems.addAll(e.problems());
            }
        }
        Cloud cloud = cloud(top.get("cloud"), fleet);
        List<Workload> workloads = new ArrayList<>();
        Node wl = top.get("workloads");
        if (wl instanceof SequenceNode seq && !seq.getValue().isEmpty()) {
            Set<String> names = new HashSet<>();
            for (Node w : seq.getValue()) {
                Workload workload = workload(w, fleet);
                if (workload != null && !names.add(workload.name())) {
                    problem(w, "workload '" + workload.name() + "' is defined twice; give one a 'name'");
                } else if (workload != null) {
                    workloads.add(workload);
                }
            }
        } else {
            problem(wl == null ? root : wl, "the scenario needs 'workloads', a non-empty list");
        }
        Baseline baseline = new Baseline(Baseline.DEFAULT_JOBS_PER_INSTANCE);
        if (top.containsKey("baseline")) {
            Map<String, Node> b = fields(top.get("baseline"), BASELINE_KEYS, "'baseline'");
            if (b.containsKey("jobs_per_instance")) {
                baseline = new Baseline(integer(b.get("jobs_per_instance"), "jobs_per_instance", 1));
            }
        }
        if (!problems.isEmpty()) {
            throw new ScenarioException(problems);
        }
        return new Scenario(name, description, runFor, warmUp, tick, sampleEvery, fleet, cloud, workloads, baseline);
    }

    private Cloud cloud(Node node, FleetConfig fleet) {
        if (node == null) {
            return new Cloud(new Spread(Duration.ofSeconds(60), Duration.ofSeconds(120)), List.of(), 0, List.of());
        }
        Map<String, Node> f = fields(node, CLOUD_KEYS, "'cloud'");
        Spread latency = f.containsKey("latency")
                ? spread(f.get("latency"), fields(f.get("latency"), SPREAD_KEYS, "'latency'"), "'latency'")
                : new Spread(Duration.ofSeconds(60), Duration.ofSeconds(120));
        List<TypeLatency> typeLatencies = new ArrayList<>();
        for (Node t : list(f.get("type_latency"), "'type_latency'")) {
            Map<String, Node> tf = fields(t, TYPE_LATENCY_KEYS, "a type latency");
            String type = requiredText(t, tf, "type", "a type latency");
            Spread s = spread(t, tf, "a type latency");
            if (type != null && fleet != null && !knownType(fleet, type)) {
                problem(tf.get("type"), "instance type '" + type + "' is in no cluster of the fleet");
            }
            if (type != null && s != null) {
                typeLatencies.add(new TypeLatency(type, s));
            }
        }
        double failure = 0;
        if (f.containsKey("failure_probability")) {
            failure = number(f.get("failure_probability"), "failure_probability");
            if (failure > 1) {
                problem(f.get("failure_probability"), "'failure_probability' must be between 0 and 1");
            }
        }
        List<CapacityChange> capacity = new ArrayList<>();
        for (Node c : list(f.get("capacity"), "'capacity'")) {
            Map<String, Node> cf = fields(c, CAPACITY_KEYS, "a capacity change");
            Duration at = required(c, cf, "at", "a capacity change");
            String cluster = requiredText(c, cf, "cluster", "a capacity change");
            String type = requiredText(c, cf, "type", "a capacity change");
            if (fleet != null && cluster != null && type != null
                    && fleet.cluster(cluster).flatMap(cl -> cl.type(type)).isEmpty()) {
                problem(c, "cluster '" + cluster + "' of the fleet has no instance type '" + type + "'");
            }
            OptionalInt limit = OptionalInt.empty();
            if (!cf.containsKey("limit")) {
                problem(c, "a capacity change needs 'limit', a number of instances or 'none'");
            } else if (!"none".equals(scalar(cf.get("limit")))) {
                limit = OptionalInt.of(integer(cf.get("limit"), "limit", 0));
            }
            if (at != null && cluster != null && type != null) {
                capacity.add(new CapacityChange(at, cluster, type, limit));
            }
        }
        return new Cloud(latency, typeLatencies, failure, capacity);
    }

    private Workload workload(Node node, FleetConfig fleet) {
        int before = problems.size();
        Map<String, Node> f = fields(node, WORKLOAD_KEYS, "a workload");
        String className = requiredText(node, f, "class", "a workload");
        ResourceClass resourceClass = null;
        if (className != null) {
            resourceClass = classes.find(className).orElse(null);
            if (resourceClass == null) {
                problem(f.get("class"), "unknown resource class '" + className + "'; known classes: "
                        + classes.known());
            }
        }
        Optional<String> image = f.containsKey("image") ? Optional.ofNullable(text(f.get("image"), "image"))
                : Optional.empty();
        String name = f.containsKey("name") ? text(f.get("name"), "name") : className;
        Arrivals arrivals = null;
        if (!f.containsKey("arrivals")) {
            problem(node, "a workload needs 'arrivals'");
        } else {
            arrivals = arrivals(f.get("arrivals"));
        }
        Spread duration = null;
        if (!f.containsKey("duration")) {
            problem(node, "a workload needs 'duration', with its median and p95");
        } else {
            Node d = f.get("duration");
            duration = spread(d, fields(d, SPREAD_KEYS, "'duration'"), "'duration'");
        }
        if (problems.size() > before || fleet == null) {
            return null;
        }
        String pool = image.map(fleet::poolForImage).orElse(dev.gantry.scheduler.Instance.DEFAULT_POOL);
        if (fleet.clustersOf(pool).isEmpty()) {
            problem(node, "workload '" + name + "' runs in pool '" + pool + "', which no cluster serves");
            return null;
        }
        return new Workload(name, resourceClass, image, pool, arrivals, duration);
    }

    private Arrivals arrivals(Node node) {
        Map<String, Node> f = fields(node, ARRIVAL_KEYS, "'arrivals'");
        Arrivals.Kind kind = Arrivals.Kind.POISSON;
        if (f.containsKey("process")) {
            String p = scalar(f.get("process"));
            if ("steady".equals(p)) {
                kind = Arrivals.Kind.STEADY;
            } else if (!"poisson".equals(p)) {
                problem(f.get("process"), "'process' is steady or poisson, got " + describe(f.get("process")));
            }
        }
        double perHour = f.containsKey("per_hour") ? number(f.get("per_hour"), "per_hour") : 0;
        double amplitude = f.containsKey("diurnal_amplitude")
                ? number(f.get("diurnal_amplitude"), "diurnal_amplitude") : 0;
        if (amplitude > 1) {
            problem(f.get("diurnal_amplitude"), "'diurnal_amplitude' must be between 0 and 1");
        }
        Duration peak = f.containsKey("diurnal_peak") ? duration(f.get("diurnal_peak")) : Duration.ZERO;
        List<Spike> spikes = new ArrayList<>();
        for (Node s : list(f.get("spikes"), "'spikes'")) {
            Map<String, Node> sf = fields(s, SPIKE_KEYS, "a spike");
            Duration from = required(s, sf, "from", "a spike");
            Duration until = required(s, sf, "until", "a spike");
            double extra = sf.containsKey("per_hour") ? number(sf.get("per_hour"), "per_hour") : 0;
            if (!sf.containsKey("per_hour")) {
                problem(s, "a spike needs 'per_hour', the extra jobs per hour during it");
            }
            if (from != null && until != null && until.compareTo(from) <= 0) {
                problem(sf.get("until"), "a spike's 'until' must be after its 'from'");
            } else if (from != null && until != null) {
                spikes.add(new Spike(from, until, extra));
            }
        }
        return new Arrivals(kind, perHour, amplitude, peak, spikes);
    }

    private Spread spread(Node node, Map<String, Node> f, String what) {
        Duration median = required(node, f, "median", what);
        Duration p95 = f.containsKey("p95") ? duration(f.get("p95")) : median;
        if (median == null || p95 == null) {
            return null;
        }
        if (p95.compareTo(median) < 0) {
            problem(f.get("p95"), "'p95' cannot be below the median " + median);
            return null;
        }
        return new Spread(median, p95);
    }

    private static boolean knownType(FleetConfig fleet, String type) {
        return fleet.clusters().stream().anyMatch(c -> c.type(type).isPresent());
    }

    private Node compose(String text) {
        try {
            LoaderOptions options = new LoaderOptions();
            options.setAllowDuplicateKeys(false);
            options.setMaxAliasesForCollections(50);
            Node root = new Yaml(options).compose(new StringReader(text));
            if (root == null) {
                problems.add(new Problem(file, 1, 1, "the scenario file is empty"));
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

    private Map<String, Node> fields(Node node, Set<String> known, String what) {
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

    private List<Node> list(Node node, String what) {
        if (node == null) {
            return List.of();
        }
        if (node instanceof SequenceNode seq) {
            return seq.getValue();
        }
        problem(node, what + " must be a list, got " + describe(node));
        return List.of();
    }

    private String requiredText(Node parent, Map<String, Node> f, String key, String what) {
        if (!f.containsKey(key)) {
            problem(parent, what + " needs '" + key + "'");
            return null;
        }
        return text(f.get(key), key);
    }

    private Duration required(Node parent, Map<String, Node> f, String key, String what) {
        if (!f.containsKey(key)) {
            problem(parent, what + " needs '" + key + "', a duration like 90s or 5h");
            return null;
        }
        return duration(f.get(key));
    }

    private String text(Node node, String what) {
        String s = scalar(node);
        if (s == null || s.isBlank()) {
            problem(node, "'" + what + "' must be a non-empty text, got " + describe(node));
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
        problem(node, "'" + key + "' must be a whole number of at least " + atLeast + ", got " + describe(node));
        return atLeast;
    }

    private double number(Node node, String key) {
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

    private Duration positive(Node node) {
        Duration d = duration(node);
        if (d != null && !d.isPositive()) {
            problem(node, "the duration must be longer than 0");
            return Duration.ofSeconds(1);
        }
        return d;
    }

    private Duration duration(Node node) {
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

    private void problem(Node node, String message) {
        Mark mark = node.getStartMark();
        problems.add(new Problem(file, mark.getLine() + 1, mark.getColumn() + 1, message));
    }
}
