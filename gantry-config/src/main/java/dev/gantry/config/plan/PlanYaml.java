package dev.gantry.config.plan;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.representer.Represent;
import org.yaml.snakeyaml.representer.Representer;

/**
 * Renders a {@link Plan} as a flattened version-2 config, in the spirit of {@code circleci config process}: no
 * parameters, commands, executors, orbs or matrices are left, each job instance is a plain job, and the workflows only
 * name them.
 *
 * <p>Output is block-style YAML, deterministic for a plan (keys in declaration order, multi-line commands as literal
 * blocks, no anchors). Jobs are keyed by instance name; when two workflows hold different jobs under the same instance
 * name, the later one is written as {@code name-2} (then {@code -3}, …) and its workflow entry keeps the instance name
 * through {@code name:}, so {@code requires} still read the same. Approval jobs appear only in their workflow, as
 * CircleCI wants. Stateless and thread-safe.
 */
public final class PlanYaml {

    private PlanYaml() {
    }

    /** The plan as a version-2 config text ending in a newline. */
    public static String write(Plan plan) {
        Map<String, Object> jobs = new LinkedHashMap<>();
        Map<String, Object> workflows = new LinkedHashMap<>();
        workflows.put("version", 2);
        for (PlanWorkflow w : plan.workflows()) {
            List<Object> entries = new ArrayList<>();
            for (PlanJob j : w.jobs()) {
                String key = j.name();
                if (j.type() != JobType.APPROVAL) {
                    Map<String, Object> body = jobBody(j);
                    key = uniqueKey(jobs, j.name(), body);
                    jobs.putIfAbsent(key, body);
                }
                entries.add(workflowEntry(j, key));
            }
            workflows.put(w.name(), Map.of("jobs", entries));
        }
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("version", 2);
        if (plan.setup()) {
            root.put("setup", true);
        }
        root.put("jobs", jobs);
        root.put("workflows", workflows);
        return yaml().dump(root);
    }

    /** The instance name, or the first {@code name-N} that is free or already holds this same job. */
    private static String uniqueKey(Map<String, Object> jobs, String name, Map<String, Object> body) {
        String key = name;
        for (int n = 2; jobs.containsKey(key) && !jobs.get(key).equals(body); n++) {
            key = name + "-" + n;
        }
        return key;
    }

    private static Map<String, Object> jobBody(PlanJob j) {
        Map<String, Object> m = new LinkedHashMap<>();
        if (j.type() == JobType.NO_OP) {
            m.put("type", JobType.NO_OP.word());
            return m;
        }
        switch (j.executor()) {
            case null -> { }
            case Executor.Docker d -> m.put("docker", d.images().stream().map(PlanYaml::image).toList());
            case Executor.Machine mc -> {
                Map<String, Object> machine = new LinkedHashMap<>();
                if (mc.image() != null) {
                    machine.put("image", mc.image());
                }
                if (mc.dockerLayerCaching()) {
                    machine.put("docker_layer_caching", true);
                }
                m.put("machine", machine.isEmpty() ? (Object) true : machine);
            }
            case Executor.Macos mac -> m.put("macos", Map.of("xcode", mac.xcode()));
        }
        put(m, "resource_class", j.resourceClass());
        if (j.parallelism() > 1) {
            m.put("parallelism", j.parallelism());
        }
        put(m, "shell", j.shell());
        put(m, "working_directory", j.workingDirectory());
        putUnless(j.environment().isEmpty(), m, "environment", j.environment());
        m.put("steps", j.steps().stream().map(PlanYaml::step).toList());
        return m;
    }

    /** A step in CircleCI syntax, {@code - kind: {fields}}; the name is always given, so never the bare form. */
    private static Object step(Step s) {
        return Map.of(s.kind(), stepFields(s));
    }

    private static Object workflowEntry(PlanJob j, String key) {
        Map<String, Object> m = new LinkedHashMap<>();
        if (!key.equals(j.name())) {
            m.put("name", j.name());
        }
        if (j.type() == JobType.APPROVAL) {
            m.put("type", JobType.APPROVAL.word());
        }
        if (!j.requires().isEmpty()) {
            m.put("requires", requires(j.requires()));
        }
        if (!j.contexts().isEmpty()) {
            m.put("context", j.contexts());
        }
        put(m, "serial-group", j.serialGroup());
        return m.isEmpty() ? key : Map.of(key, m);
    }

    /** Each upstream as a plain name when it needs only success (the common case), else in CircleCI's map form. */
    private static List<Object> requires(Map<String, List<RequiredStatus>> requires) {
        List<Object> out = new ArrayList<>();
        requires.forEach((upstream, statuses) -> {
            List<String> words = statuses.stream().map(RequiredStatus::word).toList();
            if (words.equals(List.of(RequiredStatus.SUCCESS.word()))) {
                out.add(upstream);
            } else {
                out.add(Map.of(upstream, words.size() == 1 ? words.getFirst() : words));
            }
        });
        return out;
    }

    /** A docker image's fields with CircleCI's key names; PlanJson writes the same map. */
    static Map<String, Object> image(Executor.DockerImage i) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("image", i.image());
        put(m, "name", i.name());
        put(m, "entrypoint", i.entrypoint());
        put(m, "command", i.command());
        put(m, "user", i.user());
        putUnless(i.environment().isEmpty(), m, "environment", i.environment());
        put(m, "auth", i.auth());
        put(m, "aws_auth", i.awsAuth());
        return m;
    }

    /**
     * A step's fields in record order with CircleCI's key names, leaving out nulls and defaults. Shared with
     * {@link PlanJson}, so both renderings agree on every step.
     */
    static Map<String, Object> stepFields(Step step) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", step.name());
        switch (step) {
            case Step.Run r -> {
                m.put("command", r.command());
                put(m, "shell", r.shell());
                putUnless(r.environment().isEmpty(), m, "environment", r.environment());
                putUnless(!r.background(), m, "background", true);
                put(m, "working_directory", r.workingDirectory());
                putUnless(r.noOutputTimeout() == null, m, "no_output_timeout", r.noOutputTimeout());
            }
            case Step.Checkout c -> put(m, "path", c.path());
            case Step.SetupRemoteDocker s -> {
                put(m, "version", s.version());
                putUnless(!s.dockerLayerCaching(), m, "docker_layer_caching", true);
            }
            case Step.AddSshKeys a -> putUnless(a.fingerprints().isEmpty(), m, "fingerprints", a.fingerprints());
            case Step.SaveCache s -> {
                put(m, "key", s.key());
                m.put("paths", s.paths());
            }
            case Step.RestoreCache r -> m.put("keys", r.keys());
            case Step.PersistToWorkspace p -> {
                put(m, "root", p.root());
                m.put("paths", p.paths());
            }
            case Step.AttachWorkspace a -> put(m, "at", a.at());
            case Step.StoreArtifacts s -> {
                put(m, "path", s.path());
                put(m, "destination", s.destination());
            }
            case Step.StoreTestResults s -> put(m, "path", s.path());
        }
        putUnless(step.when() == null || step.when() == Step.When.ON_SUCCESS, m, "when", step.when());
        return m;
    }

    /** A duration as CircleCI writes one: {@code 45s}, {@code 10m}, {@code 1h30m}; {@code 0s} for zero. */
    static String duration(Duration d) {
        if (d.isZero()) {
            return "0s";
        }
        StringBuilder out = new StringBuilder(d.isNegative() ? "-" : "");
        Duration a = d.abs();
        appendUnit(out, a.toHours(), "h");
        appendUnit(out, a.toMinutesPart(), "m");
        appendUnit(out, a.toSecondsPart(), "s");
        appendUnit(out, a.toMillisPart(), "ms");
        return out.toString();
    }

    private static void appendUnit(StringBuilder out, long amount, String unit) {
        if (amount != 0) {
            out.append(amount).append(unit);
        }
    }

    static void put(Map<String, Object> m, String key, Object value) {
        putUnless(value == null, m, key, value);
    }

    /** Puts the value unless {@code omit}; durations and enums become their config words. */
    static void putUnless(boolean omit, Map<String, Object> m, String key, Object value) {
        if (!omit) {
            m.put(key, switch (value) {
                case Duration d -> duration(d);
                case Step.When w -> w.word();
                case null, default -> value;
            });
        }
    }

    private static Yaml yaml() {
        DumperOptions options = new DumperOptions();
        options.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
        options.setIndent(2);
        options.setIndicatorIndent(0);
        options.setWidth(Integer.MAX_VALUE);
        options.setSplitLines(false);
        options.setLineBreak(DumperOptions.LineBreak.UNIX);
        // Plans share immutable lists and maps between jobs; anchors would make the output depend on that sharing.
        options.setDereferenceAliases(true);
        return new Yaml(new MultilineRepresenter(options), options);
    }

    /** Writes multi-line strings (most run commands) as literal blocks, as people write them. */
    private static final class MultilineRepresenter extends Representer {
        MultilineRepresenter(DumperOptions options) {
            super(options);
            Represent plain = representers.get(String.class);
            representers.put(String.class, data -> {
                String s = (String) data;
                return s.indexOf('\n') >= 0
                        ? representScalar(Tag.STR, s, DumperOptions.ScalarStyle.LITERAL)
                        : plain.representData(data);
            });
        }
    }
}
