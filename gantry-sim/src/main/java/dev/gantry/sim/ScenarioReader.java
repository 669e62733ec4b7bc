package dev.gantry.sim;

import dev.gantry.scheduler.ResourceClass;
import dev.gantry.scheduler.ResourceClasses;
import dev.gantry.scheduler.fleet.FleetConfig;
import dev.gantry.scheduler.fleet.FleetConfigException;
import dev.gantry.sim.Scenario.Arrivals;
import dev.gantry.sim.Scenario.Baseline;
import dev.gantry.sim.Scenario.CapacityChange;
import dev.gantry.sim.Scenario.Cloud;
import dev.gantry.sim.Scenario.Spike;
import dev.gantry.sim.Scenario.Spread;
import dev.gantry.sim.Scenario.TypeLatency;
import dev.gantry.sim.Scenario.Workload;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.SequenceNode;

/**
 * Reads a scenario file from SnakeYAML's node tree, so every problem names its file:line:column (1-based), and
 * collects every problem before failing. The {@code fleet} section is read by the server's own fleet parser.
 * One reader per file; not thread-safe.
 */
public final class ScenarioReader {
    private static final Set<String> TOP_KEYS = Set.of("name", "description", "run_for", "warm_up", "tick",
            "sample_every",
            "fleet", "cloud", "workloads", "baseline", "database", "outbound", "clients",
            "gantry");
    private static final Set<String> CLOUD_KEYS = Set.of("latency", "type_latency", "failure_probability",
            "capacity");
    private static final Set<String> SPREAD_KEYS = Set.of("median", "p95");
    private static final Set<String> TYPE_LATENCY_KEYS = Set.of("type", "median", "p95");
    private static final Set<String> CAPACITY_KEYS = Set.of("at", "cluster", "type", "limit");
    private static final Set<String> WORKLOAD_KEYS = Set.of("name", "class", "image", "arrivals", "duration");
    private static final Set<String> ARRIVAL_KEYS = Set.of("process", "per_hour", "diurnal_amplitude",
            "diurnal_peak", "spikes");
    private static final Set<String> SPIKE_KEYS = Set.of("from", "until", "per_hour");
    private static final Set<String> BASELINE_KEYS = Set.of("jobs_per_instance", "retries");

    private final YamlReader yaml;
    private final ResourceClasses classes;

    /** A reader of {@code file} (named in messages) whose workloads name classes of {@code classes}. */
    public ScenarioReader(String file, ResourceClasses classes) {
        this.yaml = new YamlReader(file);
        this.classes = classes;
    }

    /** The scenario in YAML {@code text}, with the default resource classes. */
    public static Scenario read(String file, String text) {
        return new ScenarioReader(file, ResourceClasses.defaults()).parse(text);
    }

    /** @throws ScenarioException listing every problem */
    public Scenario parse(String text) {
        Node root = yaml.compose(text);
        if (root == null) {
            throw new ScenarioException(yaml.problems());
        }
        Map<String, Node> top = yaml.fields(root, TOP_KEYS, "the scenario");
        String name = top.containsKey("name") ? yaml.text(top.get("name"), "name") : null;
        if (!top.containsKey("name")) {
            yaml.problem(root, "the scenario needs 'name'");
        }
        String description = top.containsKey("description") ? yaml.text(top.get("description"), "description") : "";
        Duration runFor = yaml.required(root, top, "run_for", "the scenario");
        Duration warmUp = top.containsKey("warm_up") ? yaml.duration(top.get("warm_up")) : Duration.ZERO;
        Duration tick = top.containsKey("tick") ? yaml.positive(top.get("tick")) : Duration.ofSeconds(5);
        Duration sampleEvery = top.containsKey("sample_every") ? yaml.positive(top.get("sample_every"))
                : Duration.ofMinutes(5);
        FleetConfig fleet = null;
        if (!top.containsKey("fleet")) {
            yaml.problem(root, "the scenario needs 'fleet', in the format of the server's fleet file");
        } else {
            try {
                fleet = FleetConfig.parse(yaml.file(), top.get("fleet"));
            } catch (FleetConfigException e) {
                yaml.problems().addAll(e.problems());
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
                    yaml.problem(w, "workload '" + workload.name() + "' is defined twice; give one a 'name'");
                } else if (workload != null) {
                    workloads.add(workload);
                }
            }
        } else {
            yaml.problem(wl == null ? root : wl, "the scenario needs 'workloads', a non-empty list");
        }
        Baseline baseline = new Baseline(Baseline.DEFAULT_JOBS_PER_INSTANCE);
        Node baselineRetries = null;
        if (top.containsKey("baseline")) {
            Map<String, Node> b = yaml.fields(top.get("baseline"), BASELINE_KEYS, "'baseline'");
            if (b.containsKey("jobs_per_instance")) {
                baseline = new Baseline(yaml.integer(b.get("jobs_per_instance"), "jobs_per_instance", 1));
            }
            baselineRetries = b.get("retries");
        }
        Resilience resilience = new ResilienceReader(yaml).read(top.get("database"), top.get("outbound"),
                top.get("clients"),
                top.get("gantry"), baselineRetries);
        if (!yaml.problems().isEmpty()) {
            throw new ScenarioException(yaml.problems());
        }
        return new Scenario(name, description, runFor, warmUp, tick, sampleEvery, fleet, cloud, workloads, baseline,
                resilience);
    }

    private Cloud cloud(Node node, FleetConfig fleet) {
        if (node == null) {
            return new Cloud(new Spread(Duration.ofSeconds(60), Duration.ofSeconds(120)), List.of(), 0, List.of());
        }
        Map<String, Node> f = yaml.fields(node, CLOUD_KEYS, "'cloud'");
        Spread latency = f.containsKey("latency")
                ? spread(f.get("latency"), yaml.fields(f.get("latency"), SPREAD_KEYS, "'latency'"), "'latency'")
                : new Spread(Duration.ofSeconds(60), Duration.ofSeconds(120));
        List<TypeLatency> typeLatencies = new ArrayList<>();
        for (Node t : yaml.list(f.get("type_latency"), "'type_latency'")) {
            Map<String, Node> tf = yaml.fields(t, TYPE_LATENCY_KEYS, "a type latency");
            String type = yaml.requiredText(t, tf, "type", "a type latency");
            Spread s = spread(t, tf, "a type latency");
            if (type != null && fleet != null && !knownType(fleet, type)) {
                yaml.problem(tf.get("type"), "instance type '" + type + "' is in no cluster of the fleet");
            }
            if (type != null && s != null) {
                typeLatencies.add(new TypeLatency(type, s));
            }
        }
        double failure = 0;
        if (f.containsKey("failure_probability")) {
            failure = yaml.number(f.get("failure_probability"), "failure_probability");
            if (failure > 1) {
                yaml.problem(f.get("failure_probability"), "'failure_probability' must be between 0 and 1");
            }
        }
        List<CapacityChange> capacity = new ArrayList<>();
        for (Node c : yaml.list(f.get("capacity"), "'capacity'")) {
            Map<String, Node> cf = yaml.fields(c, CAPACITY_KEYS, "a capacity change");
            Duration at = yaml.required(c, cf, "at", "a capacity change");
            String cluster = yaml.requiredText(c, cf, "cluster", "a capacity change");
            String type = yaml.requiredText(c, cf, "type", "a capacity change");
            if (fleet != null && cluster != null && type != null
                    && fleet.cluster(cluster).flatMap(cl -> cl.type(type)).isEmpty()) {
                yaml.problem(c, "cluster '" + cluster + "' of the fleet has no instance type '" + type + "'");
            }
            OptionalInt limit = OptionalInt.empty();
            if (!cf.containsKey("limit")) {
                yaml.problem(c, "a capacity change needs 'limit', a number of instances or 'none'");
            } else if (!"none".equals(yaml.scalar(cf.get("limit")))) {
                limit = OptionalInt.of(yaml.integer(cf.get("limit"), "limit", 0));
            }
            if (at != null && cluster != null && type != null) {
                capacity.add(new CapacityChange(at, cluster, type, limit));
            }
        }
        return new Cloud(latency, typeLatencies, failure, capacity);
    }

    private Workload workload(Node node, FleetConfig fleet) {
        int before = yaml.problems().size();
        Map<String, Node> f = yaml.fields(node, WORKLOAD_KEYS, "a workload");
        String className = yaml.requiredText(node, f, "class", "a workload");
        ResourceClass resourceClass = null;
        if (className != null) {
            resourceClass = classes.find(className).orElse(null);
            if (resourceClass == null) {
                yaml.problem(f.get("class"), "unknown resource class '" + className + "'; known classes: "
                        + classes.known());
            }
        }
        Optional<String> image = f.containsKey("image") ? Optional.ofNullable(yaml.text(f.get("image"), "image"))
                : Optional.empty();
        String name = f.containsKey("name") ? yaml.text(f.get("name"), "name") : className;
        Arrivals arrivals = null;
        if (!f.containsKey("arrivals")) {
            yaml.problem(node, "a workload needs 'arrivals'");
        } else {
            arrivals = arrivals(f.get("arrivals"));
        }
        Spread duration = null;
        if (!f.containsKey("duration")) {
            yaml.problem(node, "a workload needs 'duration', with its median and p95");
        } else {
            Node d = f.get("duration");
            duration = spread(d, yaml.fields(d, SPREAD_KEYS, "'duration'"), "'duration'");
        }
        if (yaml.problems().size() > before || fleet == null) {
            return null;
        }
        String pool = image.map(fleet::poolForImage).orElse(dev.gantry.scheduler.Instance.DEFAULT_POOL);
        if (fleet.clustersOf(pool).isEmpty()) {
            yaml.problem(node, "workload '" + name + "' runs in pool '" + pool + "', which no cluster serves");
            return null;
        }
        return new Workload(name, resourceClass, image, pool, arrivals, duration);
    }

    private Arrivals arrivals(Node node) {
        Map<String, Node> f = yaml.fields(node, ARRIVAL_KEYS, "'arrivals'");
        Arrivals.Kind kind = Arrivals.Kind.POISSON;
        if (f.containsKey("process")) {
            String p = yaml.scalar(f.get("process"));
            if ("steady".equals(p)) {
                kind = Arrivals.Kind.STEADY;
            } else if (!"poisson".equals(p)) {
                yaml.problem(f.get("process"), "'process' is steady or poisson, got "
                        + yaml.describe(f.get("process")));
            }
        }
        double perHour = f.containsKey("per_hour") ? yaml.number(f.get("per_hour"), "per_hour") : 0;
        double amplitude = f.containsKey("diurnal_amplitude")
                ? yaml.number(f.get("diurnal_amplitude"), "diurnal_amplitude") : 0;
        if (amplitude > 1) {
            yaml.problem(f.get("diurnal_amplitude"), "'diurnal_amplitude' must be between 0 and 1");
        }
        Duration peak = f.containsKey("diurnal_peak") ? yaml.duration(f.get("diurnal_peak")) : Duration.ZERO;
        List<Spike> spikes = new ArrayList<>();
        for (Node s : yaml.list(f.get("spikes"), "'spikes'")) {
            Map<String, Node> sf = yaml.fields(s, SPIKE_KEYS, "a spike");
            Duration from = yaml.required(s, sf, "from", "a spike");
            Duration until = yaml.required(s, sf, "until", "a spike");
            double extra = sf.containsKey("per_hour") ? yaml.number(sf.get("per_hour"), "per_hour") : 0;
            if (!sf.containsKey("per_hour")) {
                yaml.problem(s, "a spike needs 'per_hour', the extra jobs per hour during it");
            }
            if (from != null && until != null && until.compareTo(from) <= 0) {
                yaml.problem(sf.get("until"), "a spike's 'until' must be after its 'from'");
            } else if (from != null && until != null) {
                spikes.add(new Spike(from, until, extra));
            }
        }
        return new Arrivals(kind, perHour, amplitude, peak, spikes);
    }

    private Spread spread(Node node, Map<String, Node> f, String what) {
        Duration median = yaml.required(node, f, "median", what);
        Duration p95 = f.containsKey("p95") ? yaml.duration(f.get("p95")) : median;
        if (median == null || p95 == null) {
            return null;
        }
        if (p95.compareTo(median) < 0) {
            yaml.problem(f.get("p95"), "'p95' cannot be below the median " + median);
            return null;
        }
        return new Spread(median, p95);
    }

    private static boolean knownType(FleetConfig fleet, String type) {
        return fleet.clusters().stream().anyMatch(c -> c.type(type).isPresent());
    }
}
