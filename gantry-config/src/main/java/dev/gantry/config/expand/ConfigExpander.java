package dev.gantry.config.expand;

import dev.gantry.config.Limits;
import dev.gantry.config.PipelineContext;
import dev.gantry.config.diag.Problems;
import dev.gantry.config.orb.OrbResolver;
import dev.gantry.config.plan.Plan;
import dev.gantry.config.plan.PlanWorkflow;
import dev.gantry.config.yaml.Pos;
import dev.gantry.config.yaml.YNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Expands a loaded config into a plan: checks the top level and version, imports orbs, binds pipeline parameters and
 * compiles each workflow. Problems go to the {@link Problems}; the plan is meaningful only when there are none.
 * One instance serves one compile.
 */
public final class ConfigExpander {
    private static final List<String> TOP_KEYS = List.of("version", "setup", "orbs", "commands", "executors", "jobs",
            "workflows", "parameters");
    private static final List<String> ONLY_21 = List.of("setup", "orbs", "commands", "executors", "parameters");

    private final Problems problems;
    private final OrbResolver orbResolver;
    private final Limits limits;

    public ConfigExpander(Problems problems, OrbResolver orbResolver, Limits limits) {
        this.problems = problems;
        this.orbResolver = orbResolver;
        this.limits = limits;
    }

    /** The plan of {@code root} for {@code context}; every workflow and job when {@code unfiltered}. */
    public Plan expand(YNode root, PipelineContext context, boolean unfiltered) {
        if (!(root instanceof YNode.MapNode config)) {
            problems.error(root.pos(), "", "a config must be a map with 'version', 'jobs' and 'workflows', not "
                    + root.describe());
            return null;
        }
        boolean v21 = version(config);
        checkTopLevel(config, v21);
        Definitions defs = new Definitions("", "");
        defs.readFrom(config, problems);
        Budget budget = new Budget(limits.maxExpandedNodes());
        Substitutor substitutor = new Substitutor(problems, budget);
        Params params = new Params(problems, substitutor);
        Map<String, YNode> pipelineParams = pipelineParameters(config, context, params);
        Env env = v21 ? Env.pipelineOnly(new PipelineValues(context, pipelineParams)) : null;
        new Orbs(orbResolver, limits, problems, substitutor, env).importInto(defs, config.get("orbs"), "orbs");
        Logic logic = new Logic(problems);
        StepExpander steps = new StepExpander(problems, substitutor, params, logic, budget, limits.maxExpansionDepth());
        JobExpander jobs = new JobExpander(problems, substitutor, params, steps, defs, env);
        WorkflowCompiler workflows = new WorkflowCompiler(problems, substitutor, logic, jobs, defs, env, context,
                unfiltered, limits.maxJobs());
        List<PlanWorkflow> out = new ArrayList<>();
        YNode wfNode = config.get("workflows");
        if (wfNode == null) {
            PlanWorkflow w = defaultWorkflow(config, defs, workflows);
            if (w != null) {
                out.add(w);
            }
        } else if (wfNode instanceof YNode.MapNode wfs) {
            for (YNode.Entry e : wfs.entries()) {
                if (e.name().equals("version")) {
                    continue; // version 2.0 configs give the workflows' schema version here
                }
                PlanWorkflow w = workflows.compile(e.name(), e.value(), "workflows." + e.name());
                if (w != null) {
                    out.add(w);
                }
            }
        } else {
            problems.error(wfNode.pos(), "workflows", "'workflows' must be a map of name to workflow, not "
                    + wfNode.describe());
        }
        boolean setup = config.get("setup") instanceof YNode.Scalar s && Boolean.TRUE.equals(s.value());
        return new Plan(setup, out);
    }

    /** True for 2.1; false for 2 and 2.0. A bad version is reported and treated as 2.1. */
    private boolean version(YNode.MapNode config) {
        YNode v = config.get("version");
        if (v == null) {
            problems.error(config.pos(), "version", "the config has no 'version'", "add 'version: 2.1' at the top");
            return true;
        }
        String text = v instanceof YNode.Scalar s ? s.text() : "";
        return switch (text) {
            case "2", "2.0" -> false;
            case "2.1" -> true;
            default -> {
                problems.error(v.pos(), "version", "unsupported config version '" + text + "'",
                        "use 2.1 (or 2 / 2.0 for configs without orbs, commands, executors and parameters)");
                yield true;
            }
        };
    }

    private void checkTopLevel(YNode.MapNode config, boolean v21) {
        for (YNode.Entry e : config.entries()) {
            String key = e.name();
            if (!TOP_KEYS.contains(key)) {
                // Unknown top-level keys are where configs keep YAML anchors (aliases:, references:, defaults:);
                // only a near miss of a real key is a mistake.
                String mean = Names.didYouMean(key, TOP_KEYS);
                if (mean != null) {
                    problems.error(e.key().pos(), key, "unknown top-level key '" + key + "'", mean);
                }
            } else if (!v21 && ONLY_21.contains(key)) {
                problems.error(e.key().pos(), key, "'" + key + "' needs version 2.1", "set 'version: 2.1'");
            }
        }
        if (config.get("jobs") == null && config.get("workflows") == null) {
            problems.error(config.pos(), "jobs", "the config has no 'jobs'");
        }
    }

    private Map<String, YNode> pipelineParameters(YNode.MapNode config, PipelineContext context, Params params) {
        var decls = params.declarations(config.get("parameters"), "parameters", Params.PIPELINE_TYPES);
        YNode.Entry declared = config.entry("parameters");
        Pos at = declared != null ? declared.key().pos() : config.pos();
        Map<String, YNode> out = new LinkedHashMap<>();
        List<YNode.Entry> given = new ArrayList<>();
        for (var e : context.parameters().entrySet()) {
            if (!decls.containsKey(e.getKey())) {
                String mean = Names.didYouMean(e.getKey(), decls.keySet());
                problems.error(at, "parameters", "pipeline parameter '" + e.getKey() + "' is not declared",
                        mean != null ? mean : "declared pipeline parameters: " + Names.list(decls.keySet()));
                continue;
            }
            Object v = e.getValue();
            given.add(new YNode.Entry(YNode.Scalar.of(e.getKey(), at), new YNode.Scalar(v, String.valueOf(v), at)));
        }
        Map<String, YNode> bound = params.bind(decls, new YNode.MapNode(given, at), java.util.Set.of(), at,
                "parameters", "the pipeline", null);
        if (bound != null) {
            out.putAll(bound);
        } else {
            // Already reported; stand-ins keep every later use of the parameters from failing a second time.
            decls.forEach((name, d) -> out.put(name, d.defaultValue() != null ? d.defaultValue()
                    : YNode.Scalar.of("", at)));
        }
        return out;
    }

    private PlanWorkflow defaultWorkflow(YNode.MapNode config, Definitions defs, WorkflowCompiler workflows) {
        Definitions.Def build = defs.find(Definitions.Kind.JOB, "build");
        if (build == null) {
            if (config.get("jobs") != null) {
                problems.error(config.get("jobs").pos(), "jobs", "a config without 'workflows' runs its 'build' job, "
                        + "but there is no job named 'build'", "add 'workflows', or name the job 'build'");
            }
            return null;
        }
        Pos at = build.body().pos();
        List<YNode.Entry> args = new ArrayList<>();
        YNode branches = build.body().get("branches");
        if (branches != null) {
            YNode.MapNode filters = new YNode.MapNode(List.of(new YNode.Entry(YNode.Scalar.of("branches", at), branches)),
                    at);
            args.add(new YNode.Entry(YNode.Scalar.of("filters", at), filters));
        }
        YNode entry = new YNode.MapNode(List.of(new YNode.Entry(YNode.Scalar.of("build", at),
                new YNode.MapNode(args, at))), at);
        YNode.MapNode workflow = new YNode.MapNode(List.of(new YNode.Entry(YNode.Scalar.of("jobs", at),
                new YNode.SeqNode(List.of(entry), at))), at);
        return workflows.compile("workflow", workflow, "workflows.workflow");
    }
}
