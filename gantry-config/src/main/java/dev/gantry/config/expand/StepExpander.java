package dev.gantry.config.expand;

import dev.gantry.config.diag.Problems;
import dev.gantry.config.plan.Step;
import dev.gantry.config.yaml.YNode;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Expands a list of steps into built-in plan steps: command invocations are replaced by their bound and substituted
 * steps (recursively, in the scope that defined the command), and {@code when}/{@code unless} steps by their steps or
 * nothing. Invocation chains are bounded by {@code maxDepth} and may not repeat a command.
 */
final class StepExpander {
    private final Problems problems;
    private final Substitutor substitutor;
    private final Params params;
    private final Logic logic;
    private final BuiltinSteps builtins;
    private final Budget budget;
    private final int maxDepth;

    StepExpander(Problems problems, Substitutor substitutor, Params params, Logic logic, Budget budget, int maxDepth) {
        this.problems = problems;
        this.substitutor = substitutor;
        this.params = params;
        this.logic = logic;
        this.builtins = new BuiltinSteps(problems);
        this.budget = budget;
        this.maxDepth = maxDepth;
    }

    /**
     * Appends the expansion of {@code steps} (already substituted in its own scope) to {@code out}.
     *
     * @param chain the commands being expanded around this list, outermost first
     */
    void expand(YNode steps, Definitions scope, Env pipelineEnv, String path, List<Definitions.Def> chain, List<Step> out) {
        if (steps == null || (steps instanceof YNode.Scalar s && s.isNull())) {
            return;
        }
        if (!(steps instanceof YNode.SeqNode seq)) {
            problems.error(steps.pos(), path, "steps must be a list, not " + steps.describe());
            return;
        }
        List<YNode> items = seq.items();
        for (int i = 0; i < items.size(); i++) {
            step(items.get(i), scope, pipelineEnv, path + "[" + i + "]", chain, out);
        }
    }

    private void step(YNode item, Definitions scope, Env pipelineEnv, String path, List<Definitions.Def> chain, List<Step> out) {
        budget.spend(1, item.pos(), path);
        if (item instanceof YNode.Scalar s && s.isString()) {
            String builtin = builtinName(s.text(), scope);
            if (builtin != null) {
                add(out, builtins.bare(YNode.Scalar.of(builtin, s.pos()), path + "." + s.text()));
            } else {
                invoke(s.text(), s, null, scope, pipelineEnv, path, chain, out);
            }
            return;
        }
        if (!(item instanceof YNode.MapNode map) || map.size() != 1) {
            String found = item instanceof YNode.MapNode m ? "a map with keys " + Names.list(m.keys()) : item.describe();
            problems.error(item.pos(), path, "a step is a step name, or a map with exactly one key (the step name); "
                    + "found " + found, item instanceof YNode.MapNode ? "check the indentation of the step's settings"
                    : null);
            return;
        }
        YNode.Entry e = map.entries().get(0);
        String name = e.name();
        String p = path + "." + name;
        String builtin = builtinName(name, scope);
        if (builtin != null) {
            add(out, builtins.parse(builtin, e.value(), e.key().pos(), p));
        } else if (name.equals("when") || name.equals("unless")) {
            conditional(name, e.value(), scope, pipelineEnv, p, chain, out);
        } else if (name.equals("steps")) {
            expand(e.value(), scope, pipelineEnv, p, chain, out); // "- steps: << parameters.more >>" splices a list
        } else {
            invoke(name, e.key(), e.value(), scope, pipelineEnv, path, chain, out);
        }
    }

    private void conditional(String kind, YNode body, Definitions scope, Env pipelineEnv, String path,
                             List<Definitions.Def> chain, List<Step> out) {
        if (!(body instanceof YNode.MapNode map) || !map.has("condition") || !map.has("steps")) {
            problems.error(body.pos(), path, "a '" + kind + "' step needs 'condition' and 'steps'");
            return;
        }
        for (YNode.Entry e : map.entries()) {
            if (!e.name().equals("condition") && !e.name().equals("steps")) {
                problems.error(e.key().pos(), path + "." + e.name(), "a '" + kind + "' step takes only 'condition' "
                        + "and 'steps'", Names.didYouMean(e.name(), List.of("condition", "steps")));
            }
        }
        boolean holds = logic.eval(map.get("condition"), path + ".condition");
        if (holds == kind.equals("when")) {
            expand(map.get("steps"), scope, pipelineEnv, path + ".steps", chain, out);
        }
    }

    private void invoke(String name, YNode.Scalar at, YNode args, Definitions scope, Env pipelineEnv, String path,
                        List<Definitions.Def> chain, List<Step> out) {
        Definitions.Def def = scope.find(Definitions.Kind.COMMAND, name);
        if (def == null) {
            if (!scope.refersToMissingOrb(name)) {
                problems.error(at.pos(), path, "unknown step or command '" + name + "'", unknownHint(name, scope));
            }
            return;
        }
        if (chain.contains(def)) {
            List<String> names = chain.subList(chain.indexOf(def), chain.size()).stream().map(Definitions.Def::name)
                    .toList();
            problems.error(at.pos(), path, "command '" + name + "' invokes itself: " + String.join(" -> ", names)
                    + " -> " + def.name());
            return;
        }
        if (chain.size() >= maxDepth) {
            throw new Abort(at.pos(), path, "commands invoke each other more than " + maxDepth + " levels deep",
                    "check for commands that invoke each other");
        }
        if (args != null && !(args instanceof YNode.MapNode) && !(args instanceof YNode.Scalar s && s.isNull())) {
            problems.error(args.pos(), path + "." + name, "the arguments of command '" + name + "' must be a map, not "
                    + args.describe());
            return;
        }
        String owner = "command '" + name + "'";
        var decls = params.declarations(def.body().get("parameters"), def.path() + ".parameters", Params.TYPES);
        Map<String, YNode> bound = params.bind(decls, args instanceof YNode.MapNode m ? m : null, Set.of(), at.pos(),
                path + "." + name, owner, pipelineEnv);
        if (bound == null) {
            return;
        }
        for (YNode.Entry e : def.body().entries()) {
            if (!List.of("parameters", "steps", "description").contains(e.name())) {
                problems.error(e.key().pos(), def.path() + "." + e.name(), "unknown key '" + e.name()
                        + "' in a command", Names.didYouMean(e.name(), List.of("parameters", "steps", "description")));
            }
        }
        YNode steps = def.body().get("steps");
        if (steps == null) {
            problems.error(def.body().pos(), def.path(), "command '" + name + "' has no 'steps'");
            return;
        }
        YNode expanded = substitutor.applyParameters(steps, pipelineEnv, bound, owner, def.path() + ".steps");
        List<Definitions.Def> inner = new ArrayList<>(chain);
        inner.add(def);
        expand(expanded, def.scope(), pipelineEnv, def.path() + ".steps", inner, out);
    }

    private static String unknownHint(String name, Definitions scope) {
        Collection<String> known = new ArrayList<>(BuiltinSteps.NAMES);
        known.addAll(scope.visible(Definitions.Kind.COMMAND));
        known.add("when");
        known.add("unless");
        String mean = Names.didYouMean(name, known);
        if (mean != null) {
            return mean;
        }
        int slash = name.indexOf('/');
        if (slash > 0 && !scope.hasOrb(name.substring(0, slash))) {
            return "no orb named '" + name.substring(0, slash) + "' is imported";
        }
        return null;
    }

    /**
     * The built-in step {@code name} means, or null when it names a command. CircleCI also accepts the hyphenated
     * spellings of built-ins ({@code restore-cache}).
     */
    private static String builtinName(String name, Definitions scope) {
        if (scope.find(Definitions.Kind.COMMAND, name) != null) {
            return null; // a command of the config's own shadows a built-in, so 'deploy' can be a command
        }
        String underscored = name.replace('-', '_');
        return BuiltinSteps.isBuiltin(underscored) ? underscored : null;
    }

    private static void add(List<Step> out, Step step) {
        if (step != null) {
            out.add(step);
        }
    }
}
