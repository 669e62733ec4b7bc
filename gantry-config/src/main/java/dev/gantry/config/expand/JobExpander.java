package dev.gantry.config.expand;

import dev.gantry.config.diag.Problems;
import dev.gantry.config.plan.Executor;
import dev.gantry.config.plan.JobType;
import dev.gantry.config.plan.PlanJob;
import dev.gantry.config.plan.RequiredStatus;
import dev.gantry.config.plan.Step;
import dev.gantry.config.yaml.YNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Turns one workflow {@link Instance} into a {@link PlanJob}: binds the job's parameters, substitutes them, resolves
 * its executor (by name, with parameters, or inline), and expands its steps with the entry's pre- and post-steps.
 */
final class JobExpander {
    static final Set<String> ENTRY_KEYS = Set.of("requires", "name", "context", "filters", "matrix", "type",
            "pre-steps", "post-steps", "serial-group", "override-with", "max_auto_reruns", "auto_rerun_delay");
    private static final List<String> JOB_KEYS = List.of("docker", "machine", "macos", "executor", "resource_class",
            "parallelism", "shell", "working_directory", "environment", "parameters", "steps", "type", "description",
            "circleci_ip_ranges", "branches", "retention");
    private static final List<String> EXECUTOR_KEYS = List.of("docker", "machine", "macos", "resource_class", "shell",
            "working_directory", "environment", "parameters", "description");
    static final String DEFAULT_RESOURCE_CLASS = "medium";
    static final String DEFAULT_MACOS_RESOURCE_CLASS = "macos.m1.medium.gen1";

    private final Problems problems;
    private final Substitutor substitutor;
    private final Params params;
    private final StepExpander steps;
    private final Executors executors;
    private final Definitions root;
    private final Env pipelineEnv;

    JobExpander(Problems problems, Substitutor substitutor, Params params, StepExpander steps, Definitions root,
                Env pipelineEnv) {
        this.problems = problems;
        this.substitutor = substitutor;
        this.params = params;
        this.steps = steps;
        this.executors = new Executors(problems);
        this.root = root;
        this.pipelineEnv = pipelineEnv;
    }

    /** The plan job for {@code in}, or null when it has errors (reported). */
    PlanJob expand(Instance in, Map<String, List<RequiredStatus>> requires) {
        Map<String, Object> matrix = matrixValues(in);
        JobType type = in.type();
        Definitions.Def def = in.def();
        if (type == null && def != null) {
            type = jobType(def.body());
        }
        if (type == null) {
            type = JobType.BUILD;
        }
        if (type != JobType.BUILD) {
            return new PlanJob(in.name(), in.jobName(), type, requires, null, null, 1, null, null, Map.of(),
                    in.contexts(), in.serialGroup(), matrix, List.of());
        }
        String owner = "job '" + in.jobName() + "'";
        var decls = params.declarations(def.body().get("parameters"), def.path() + ".parameters", Params.TYPES);
        Map<String, YNode> bound = params.bind(decls, in.args(), ENTRY_KEYS, in.pos(), in.path(), owner, pipelineEnv);
        if (bound == null) {
            return null;
        }
        checkKeys(def.body(), def.path(), JOB_KEYS, "a job");
        YNode.MapNode body = (YNode.MapNode) substitutor.applyParameters(def.body(), pipelineEnv, bound, owner,
                def.path());
        Resolved exec = executor(body, def);
        if (exec == null) {
            return null;
        }
        List<Step> expanded = new ArrayList<>();
        steps.expand(in.preSteps(), root, pipelineEnv, in.path() + ".pre-steps", List.of(), expanded);
        YNode jobSteps = body.get("steps");
        if (jobSteps == null) {
            problems.error(body.pos(), def.path(), owner + " has no 'steps'");
        }
        steps.expand(jobSteps, def.scope(), pipelineEnv, def.path() + ".steps", List.of(), expanded);
        steps.expand(in.postSteps(), root, pipelineEnv, in.path() + ".post-steps", List.of(), expanded);

        Map<String, String> environment = new LinkedHashMap<>(exec.environment());
        environment.putAll(Environments.read(body.get("environment"), def.path() + ".environment", problems));
        String resourceClass = first(text(body, "resource_class", def.path()), exec.resourceClass(),
                exec.executor() instanceof Executor.Macos ? DEFAULT_MACOS_RESOURCE_CLASS : DEFAULT_RESOURCE_CLASS);
        int parallelism = parallelism(body, def.path());
        String shell = first(text(body, "shell", def.path()), exec.shell(), null);
        String workdir = first(text(body, "working_directory", def.path()), exec.workingDirectory(), null);
        return new PlanJob(in.name(), in.jobName(), type, requires, resourceClass, exec.executor(), parallelism, shell,
                workdir, environment, in.contexts(), in.serialGroup(), matrix, expanded);
    }

    /** The type a job definition declares, or null when it declares none or a wrong one (reported). */
    JobType jobType(YNode.MapNode body) {
        YNode t = body.get("type");
        if (t == null) {
            return null;
        }
        JobType type = t instanceof YNode.Scalar s ? JobType.fromWord(s.text()) : null;
        if (type == null) {
            problems.error(t.pos(), "type", "a job's type is build, approval or no-op, not "
                    + (t instanceof YNode.Scalar s ? "'" + s.text() + "'" : t.describe()));
        }
        return type;
    }

    private record Resolved(Executor executor, String resourceClass, String shell, String workingDirectory,
                            Map<String, String> environment) {
    }

    private Resolved executor(YNode.MapNode body, Definitions.Def def) {
        YNode ref = body.get("executor");
        int inline = Executors.kindsIn(body);
        if (ref != null && inline > 0) {
            problems.error(ref.pos(), def.path() + ".executor", "a job has either 'executor' or one of 'docker', "
                    + "'machine' and 'macos', not both");
            return null;
        }
        if (ref == null) {
            Executor e = executors.read(body, def.path());
            if (e == null) {
                if (inline == 0) {
                    problems.error(body.pos(), def.path(), "job '" + def.name() + "' has no executor",
                            "give it 'docker', 'machine', 'macos' or 'executor'");
                }
                return null;
            }
            return new Resolved(e, null, null, null, Map.of());
        }
        String path = def.path() + ".executor";
        YNode.Scalar nameNode = ref instanceof YNode.MapNode m && m.get("name") instanceof YNode.Scalar n ? n
                : ref instanceof YNode.Scalar s && s.isString() ? s : null;
        if (nameNode == null) {
            problems.error(ref.pos(), path, "'executor' is an executor name or a map with 'name' and its parameters, "
                    + "not " + ref.describe());
            return null;
        }
        String name = nameNode.text();
        Definitions.Def exec = def.scope().find(Definitions.Kind.EXECUTOR, name);
        if (exec == null && def.scope() != root) {
            exec = root.find(Definitions.Kind.EXECUTOR, name); // an executor passed in from the config using the orb
        }
        if (exec == null && def.scope().refersToMissingOrb(name)) {
            return null;
        }
        if (exec == null) {
            String mean = Names.didYouMean(name, def.scope().visible(Definitions.Kind.EXECUTOR));
            problems.error(nameNode.pos(), path, "unknown executor '" + name + "'", mean != null ? mean
                    : "declared executors: " + Names.list(def.scope().visible(Definitions.Kind.EXECUTOR)));
            return null;
        }
        String owner = "executor '" + name + "'";
        var decls = params.declarations(exec.body().get("parameters"), exec.path() + ".parameters", Params.TYPES);
        Map<String, YNode> bound = params.bind(decls, ref instanceof YNode.MapNode m ? m : null, Set.of("name"),
                ref.pos(), path, owner, pipelineEnv);
        if (bound == null) {
            return null;
        }
        checkKeys(exec.body(), exec.path(), EXECUTOR_KEYS, "an executor");
        YNode.MapNode body2 = (YNode.MapNode) substitutor.applyParameters(exec.body(), pipelineEnv, bound, owner,
                exec.path());
        Executor e = executors.read(body2, exec.path());
        if (e == null) {
            if (Executors.kindsIn(body2) == 0) {
                problems.error(body2.pos(), exec.path(), owner + " has none of 'docker', 'machine' and 'macos'");
            }
            return null;
        }
        return new Resolved(e, text(body2, "resource_class", exec.path()), text(body2, "shell", exec.path()),
                text(body2, "working_directory", exec.path()),
                Environments.read(body2.get("environment"), exec.path() + ".environment", problems));
    }

    private int parallelism(YNode.MapNode body, String path) {
        YNode p = body.get("parallelism");
        if (p == null) {
            return 1;
        }
        if (p instanceof YNode.Scalar s) {
            Long n = s.value() instanceof Long l ? l : s.isString() && s.text().matches("\\d{1,9}") ? Long.valueOf(s.text()) : null;
            if (n != null && n >= 1 && n <= 1000) {
                return n.intValue();
            }
        }
        problems.error(p.pos(), path + ".parallelism", "'parallelism' must be an integer from 1 to 1000, not "
                + (p instanceof YNode.Scalar s ? "'" + s.text() + "'" : p.describe()));
        return 1;
    }

    private String text(YNode.MapNode map, String key, String path) {
        return Read.text(problems, map, key, path);
    }

    private void checkKeys(YNode.MapNode map, String path, List<String> allowed, String what) {
        Read.knownKeys(problems, map, path, allowed, what);
    }

    private static Map<String, Object> matrixValues(Instance in) {
        Map<String, Object> out = new LinkedHashMap<>();
        in.matrix().forEach((k, v) -> out.put(k, v instanceof YNode.Scalar s ? s.value() : Matrix.label(v)));
        return out;
    }

    private static String first(String a, String b, String c) {
        return a != null ? a : b != null ? b : c;
    }
}
