package dev.gantry.config.expand;

import dev.gantry.config.PipelineContext;
import dev.gantry.config.diag.Problems;
import dev.gantry.config.plan.JobType;
import dev.gantry.config.plan.PlanJob;
import dev.gantry.config.plan.PlanWorkflow;
import dev.gantry.config.plan.RequiredStatus;
import dev.gantry.config.yaml.Pos;
import dev.gantry.config.yaml.YNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Compiles one workflow: its {@code when}/{@code unless}, its job entries (with matrices), the {@code requires} graph
 * (unknown names and cycles are errors), and the filters that decide which instances run for the pipeline. A job whose
 * filters exclude it is absent, and so is every job that requires it, directly or not.
 */
final class WorkflowCompiler {
    private static final List<String> WORKFLOW_KEYS = List.of("jobs", "when", "unless", "triggers",
            "max_auto_reruns");
    private static final List<String> SCHEDULED_SOURCES = List.of("schedule", "scheduled_pipeline");

    private final Problems problems;
    private final Substitutor substitutor;
    private final Logic logic;
    private final Filters filters;
    private final Matrix matrix;
    private final JobExpander jobs;
    private final Definitions root;
    private final Env pipelineEnv;
    private final PipelineContext context;
    private final boolean unfiltered;
    private final int maxJobs;

    WorkflowCompiler(Problems problems, Substitutor substitutor, Logic logic, JobExpander jobs, Definitions root,
                     Env pipelineEnv, PipelineContext context, boolean unfiltered, int maxJobs) {
        this.problems = problems;
        this.substitutor = substitutor;
        this.logic = logic;
        this.filters = new Filters(problems);
        this.matrix = new Matrix(problems, maxJobs);
        this.jobs = jobs;
        this.root = root;
        this.pipelineEnv = pipelineEnv;
        this.context = context;
        this.unfiltered = unfiltered;
        this.maxJobs = maxJobs;
    }

    /** The workflow as it runs for the pipeline; null when it does not run or has errors. */
    PlanWorkflow compile(String name, YNode node, String path) {
        if (!(node instanceof YNode.MapNode body)) {
            problems.error(node.pos(), path, "a workflow must be a map with 'jobs', not " + node.describe());
            return null;
        }
        for (YNode.Entry e : body.entries()) {
            if (!WORKFLOW_KEYS.contains(e.name())) {
                String mean = Names.didYouMean(e.name(), WORKFLOW_KEYS);
                problems.error(e.key().pos(), path + "." + e.name(), "unknown key '" + e.name() + "' in a workflow",
                        mean != null ? mean : "allowed: " + Names.list(WORKFLOW_KEYS));
            }
        }
        boolean runs = conditionHolds(body, "when", path) & !conditionHolds(body, "unless", path) & scheduled(body, path);
        YNode entries = body.get("jobs");
        if (!(entries instanceof YNode.SeqNode seq) || seq.items().isEmpty()) {
            problems.error(entries == null ? body.pos() : entries.pos(), path + ".jobs",
                    "a workflow needs 'jobs': a non-empty list of jobs");
            return null;
        }
        List<Instance> instances = new ArrayList<>();
        for (int i = 0; i < seq.items().size(); i++) {
            entry(seq.items().get(i), path + ".jobs[" + i + "]", instances);
            if (instances.size() > maxJobs) {
                problems.error(seq.pos(), path + ".jobs", "workflow '" + name + "' has more than " + maxJobs + " jobs");
                return null;
            }
        }
        if (!runs && !unfiltered) {
            return null;
        }
        Map<String, Map<String, List<RequiredStatus>>> graph = requiresGraph(instances);
        if (graph == null) {
            return null;
        }
        Map<String, Boolean> running = new HashMap<>();
        List<PlanJob> out = new ArrayList<>();
        for (Instance in : instances) {
            if (unfiltered || runs(in.name(), instancesByName(instances), graph, running)) {
                PlanJob job = jobs.expand(in, graph.get(in.name()));
                if (job != null) {
                    out.add(job);
                }
            }
        }
        return out.isEmpty() ? null : new PlanWorkflow(name, out);
    }

    private boolean conditionHolds(YNode.MapNode body, String key, String path) {
        YNode condition = body.get(key);
        if (condition == null) {
            return key.equals("when");
        }
        return logic.eval(substitutor.apply(condition, pipelineEnv, path + "." + key), path + "." + key);
    }

    /** A workflow with schedule triggers (version 2.0) runs only for scheduled pipelines. */
    private boolean scheduled(YNode.MapNode body, String path) {
        YNode triggers = body.get("triggers");
        if (triggers == null) {
            return true;
        }
        if (!(triggers instanceof YNode.SeqNode seq) || seq.items().stream().anyMatch(
                t -> !(t instanceof YNode.MapNode m) || !(m.get("schedule") instanceof YNode.MapNode s) || !s.has("cron"))) {
            problems.error(triggers.pos(), path + ".triggers", "'triggers' must be a list of "
                    + "{schedule: {cron, filters}}");
            return false;
        }
        return SCHEDULED_SOURCES.contains(context.triggerSource());
    }

    private void entry(YNode item, String path, List<Instance> out) {
        String jobName;
        YNode.MapNode args = null;
        Pos pos = item.pos();
        if (item instanceof YNode.Scalar s && s.isString()) {
            jobName = s.text();
        } else if (item instanceof YNode.MapNode m && m.size() == 1) {
            YNode.Entry e = m.entries().get(0);
            jobName = e.name();
            pos = e.key().pos();
            if (e.value() instanceof YNode.MapNode a) {
                args = a;
            } else if (!(e.value() instanceof YNode.Scalar v && v.isNull())) {
                problems.error(e.value().pos(), path + "." + jobName, "the settings of workflow job '" + jobName
                        + "' must be a map, not " + e.value().describe());
                return;
            }
        } else {
            String found = item instanceof YNode.MapNode m ? "a map with keys " + Names.list(m.keys()) : item.describe();
            problems.error(item.pos(), path, "a workflow job is a job name, or a map with exactly one key (the job "
                    + "name); found " + found, item instanceof YNode.MapNode
                    ? "indent the job's settings under its name" : null);
            return;
        }
        String entryPath = path + "." + jobName;
        JobType type = null;
        if (args != null && args.get("type") instanceof YNode.Scalar t) {
            type = JobType.fromWord(t.text());
            if (type == null) {
                problems.error(t.pos(), entryPath + ".type", "a workflow job's type is approval, build or no-op, "
                        + "not '" + t.text() + "'");
                return;
            }
        }
        Definitions.Def def = root.find(Definitions.Kind.JOB, jobName);
        if (def == null && type != JobType.APPROVAL && root.refersToMissingOrb(jobName)) {
            return;
        }
        if (def == null && type != JobType.APPROVAL) {
            String mean = Names.didYouMean(jobName, root.visible(Definitions.Kind.JOB));
            problems.error(pos, path, "unknown job '" + jobName + "'", mean != null ? mean
                    : "declared jobs: " + Names.list(root.visible(Definitions.Kind.JOB)));
            return;
        }
        if (args != null && args.has("override-with")) {
            problems.warning(args.entry("override-with").key().pos(), entryPath + ".override-with",
                    "'override-with' is not supported and is ignored", null);
        }
        if (args != null && args.get("matrix") != null) {
            Matrix.Expansion ex = matrix.expand(args.get("matrix"), entryPath + ".matrix");
            if (ex == null) {
                return;
            }
            String alias = ex.alias() != null ? ex.alias() : jobName;
            for (Map<String, YNode> combo : ex.combinations()) {
                Env env = pipelineEnv == null ? null : new Env(pipelineEnv.pipeline(), null, combo, null);
                YNode.MapNode a = withMatrix((YNode.MapNode) substitute(args, env, entryPath), combo);
                String name = a.get("name") instanceof YNode.Scalar n ? n.text() : Matrix.name(jobName, combo);
                out.add(instance(name, alias, jobName, def, type, a, combo, pos, entryPath));
            }
        } else {
            YNode.MapNode a = args == null ? null : (YNode.MapNode) substitute(args, pipelineEnv, entryPath);
            String name = a != null && a.get("name") instanceof YNode.Scalar n ? n.text() : jobName;
            out.add(instance(name, name, jobName, def, type, a, Map.of(), pos, entryPath));
        }
    }

    private YNode substitute(YNode node, Env env, String path) {
        return env == null ? node : substitutor.apply(node, env, path);
    }

    /** The entry's arguments with the matrix values added as job parameters, and without the matrix itself. */
    private static YNode.MapNode withMatrix(YNode.MapNode args, Map<String, YNode> combo) {
        List<YNode.Entry> entries = new ArrayList<>();
        for (YNode.Entry e : args.entries()) {
            if (!e.name().equals("matrix") && !combo.containsKey(e.name())) {
                entries.add(e);
            }
        }
        combo.forEach((k, v) -> entries.add(new YNode.Entry(YNode.Scalar.of(k, v.pos()), v)));
        return new YNode.MapNode(entries, args.pos());
    }

    private Instance instance(String name, String alias, String jobName, Definitions.Def def, JobType type,
                              YNode.MapNode args, Map<String, YNode> combo, Pos pos, String path) {
        List<String> contexts = new ArrayList<>();
        String serialGroup = null;
        Filters.Filter filter = filters.parse(null, path);
        YNode requires = null;
        YNode pre = null;
        YNode post = null;
        if (args != null) {
            YNode ctx = args.get("context");
            if (ctx != null) {
                for (YNode c : ctx instanceof YNode.SeqNode s ? s.items() : List.of(ctx)) {
                    if (c instanceof YNode.Scalar s && s.value() != null) {
                        contexts.add(s.text());
                    } else {
                        problems.error(c.pos(), path + ".context", "'context' must be a name or a list of names");
                    }
                }
            }
            if (args.get("serial-group") instanceof YNode.Scalar g && g.value() != null) {
                serialGroup = g.text();
            } else if (args.has("serial-group")) {
                problems.error(args.get("serial-group").pos(), path + ".serial-group", "'serial-group' must be a name");
            }
            filter = filters.parse(args.get("filters"), path + ".filters");
            requires = args.get("requires");
            pre = args.get("pre-steps");
            post = args.get("post-steps");
        }
        return new Instance(name, alias, def == null ? jobName : def.name(), def, type, args, requires, contexts,
                serialGroup, combo, pre, post, filter, pos, path);
    }

    private static Map<String, Instance> instancesByName(List<Instance> instances) {
        Map<String, Instance> out = new LinkedHashMap<>();
        instances.forEach(i -> out.putIfAbsent(i.name(), i));
        return out;
    }

    /** Each instance's upstreams with their statuses; null when names are duplicated, unknown or cyclic. */
    private Map<String, Map<String, List<RequiredStatus>>> requiresGraph(List<Instance> instances) {
        int errorsBefore = problems.errorCount();
        Map<String, Instance> byName = new LinkedHashMap<>();
        Map<String, List<Instance>> byAlias = new LinkedHashMap<>();
        for (Instance in : instances) {
            Instance first = byName.putIfAbsent(in.name(), in);
            if (first != null) {
                problems.error(in.pos(), in.path(), "job name '" + in.name() + "' is used twice in this workflow "
                        + "(first at line " + first.pos().line() + ")", "give one of them a different 'name'");
            }
            if (!in.alias().equals(in.name())) {
                byAlias.computeIfAbsent(in.alias(), k -> new ArrayList<>()).add(in);
            }
        }
        Map<String, Map<String, List<RequiredStatus>>> graph = new LinkedHashMap<>();
        for (Instance in : instances) {
            Map<String, List<RequiredStatus>> up = new LinkedHashMap<>();
            graph.putIfAbsent(in.name(), up);
            if (in.requires() == null) {
                continue;
            }
            String path = in.path() + ".requires";
            if (!(in.requires() instanceof YNode.SeqNode seq)) {
                problems.error(in.requires().pos(), path, "'requires' must be a list of job names");
                continue;
            }
            for (int i = 0; i < seq.items().size(); i++) {
                YNode item = seq.items().get(i);
                String p = path + "[" + i + "]";
                if (item instanceof YNode.Scalar s && s.value() != null) {
                    link(in, s.text(), List.of(RequiredStatus.SUCCESS), s.pos(), p, byName, byAlias, up);
                } else if (item instanceof YNode.MapNode m && !m.isEmpty()) {
                    for (YNode.Entry e : m.entries()) {
                        List<RequiredStatus> statuses = statuses(e.value(), p + "." + e.name());
                        if (statuses != null) {
                            link(in, e.name(), statuses, e.key().pos(), p, byName, byAlias, up);
                        }
                    }
                } else {
                    problems.error(item.pos(), p, "a requirement is a job name, or a map of job name to statuses");
                }
            }
        }
        if (problems.errorCount() > errorsBefore) {
            return null;
        }
        return findCycle(instances, graph) ? null : graph;
    }

    private void link(Instance in, String target, List<RequiredStatus> statuses, Pos pos, String path,
                      Map<String, Instance> byName, Map<String, List<Instance>> byAlias,
                      Map<String, List<RequiredStatus>> up) {
        List<Instance> targets = byName.containsKey(target) ? List.of(byName.get(target)) : byAlias.get(target);
        if (targets == null) {
            List<String> known = new ArrayList<>(byName.keySet());
            known.addAll(byAlias.keySet());
            String mean = Names.didYouMean(target, known);
            problems.error(pos, path, "job '" + in.name() + "' requires unknown job '" + target + "'",
                    mean != null ? mean : "jobs in this workflow: " + Names.list(known));
            return;
        }
        for (Instance t : targets) {
            if (t.name().equals(in.name())) {
                problems.error(pos, path, "job '" + in.name() + "' requires itself");
                continue;
            }
            List<RequiredStatus> merged = new ArrayList<>(up.getOrDefault(t.name(), List.of()));
            statuses.stream().filter(s -> !merged.contains(s)).forEach(merged::add);
            up.put(t.name(), merged);
        }
    }

    private List<RequiredStatus> statuses(YNode node, String path) {
        List<RequiredStatus> out = new ArrayList<>();
        for (YNode item : node instanceof YNode.SeqNode seq ? seq.items() : List.of(node)) {
            RequiredStatus s = item instanceof YNode.Scalar sc ? RequiredStatus.fromWord(sc.text()) : null;
            if (s == null) {
                problems.error(item.pos(), path, "a required status is success, failed or canceled, not "
                        + (item instanceof YNode.Scalar sc ? "'" + sc.text() + "'" : item.describe()));
                return null;
            }
            if (!out.contains(s)) {
                out.add(s);
            }
        }
        return out.isEmpty() ? null : out;
    }

    /** Reports the first cycle in {@code requires} order, printed as a → b → a. */
    private boolean findCycle(List<Instance> instances, Map<String, Map<String, List<RequiredStatus>>> graph) {
        Map<String, Integer> state = new HashMap<>(); // 1 = on the current path, 2 = done
        for (Instance in : instances) {
            List<String> cycle = dfs(in.name(), graph, state, new ArrayList<>());
            if (cycle != null) {
                Instance start = instancesByName(instances).get(cycle.get(0));
                problems.error(start.pos(), start.path() + ".requires", "the requires graph has a cycle: "
                        + String.join(" -> ", cycle));
                return true;
            }
        }
        return false;
    }

    private List<String> dfs(String node, Map<String, Map<String, List<RequiredStatus>>> graph,
                             Map<String, Integer> state, List<String> path) {
        Integer s = state.get(node);
        if (s != null && s == 2) {
            return null;
        }
        if (s != null) {
            List<String> cycle = new ArrayList<>(path.subList(path.indexOf(node), path.size()));
            cycle.add(node);
            return cycle;
        }
        state.put(node, 1);
        path.add(node);
        for (String up : graph.get(node).keySet()) {
            List<String> cycle = dfs(up, graph, state, path);
            if (cycle != null) {
                return cycle;
            }
        }
        path.remove(path.size() - 1);
        state.put(node, 2);
        return null;
    }

    private boolean runs(String name, Map<String, Instance> byName, Map<String, Map<String, List<RequiredStatus>>> graph,
                         Map<String, Boolean> memo) {
        Boolean known = memo.get(name);
        if (known != null) {
            return known;
        }
        boolean result = byName.get(name).filter().admits(context);
        for (String up : graph.get(name).keySet()) {
            result &= runs(up, byName, graph, memo);
        }
        memo.put(name, result);
        return result;
    }
}
