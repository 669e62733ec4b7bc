package dev.gantry.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gantry.config.plan.PlanJob;
import dev.gantry.config.plan.PlanWorkflow;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Matrix expansion: a job with one to three string parameters and a matrix of one to four distinct values each, minus
 * a random set of exclusions, expands to exactly the remaining combinations. Each instance is named
 * {@code <job>-<v1>-<v2>…} with the values in parameter-name order, names are unique, each instance's
 * {@link PlanJob#matrix()} is one of the remaining combinations, and a downstream job that requires the matrix
 * (by its alias or by the job name) requires exactly every instance. Parameters and exclusion keys are written in
 * random order, so the name order has to come from sorting.
 */
class MatrixProperties {
    private static final ConfigCompiler COMPILER = ConfigCompiler.create();
    /** Keys a workflow job entry already uses; a matrix parameter of that name would mean something else. */
    private static final Set<String> ENTRY_KEYS = Set.of("requires", "name", "context", "filters", "matrix", "type",
            "pre-steps", "post-steps", "serial-group", "override-with", "max_auto_reruns", "auto_rerun_delay",
            "alias", "parameters", "exclude");

    /** One generated matrix. {@code params} in the order written; {@code excluded} may repeat a combination. */
    record Model(String job, Map<String, List<String>> params, List<Map<String, String>> excluded, String alias) {

        /** Every combination, parameters in name order, the first varying slowest. */
        List<Map<String, String>> combinations() {
            List<Map<String, String>> out = List.of(new TreeMap<>());
            for (var e : new TreeMap<>(params).entrySet()) {
                List<Map<String, String>> next = new ArrayList<>();
                for (Map<String, String> c : out) {
                    for (String v : e.getValue()) {
                        Map<String, String> m = new TreeMap<>(c);
                        m.put(e.getKey(), v);
                        next.add(m);
                    }
                }
                out = next;
            }
            return out;
        }

        Set<Map<String, String>> remaining() {
            Set<Map<String, String>> out = new LinkedHashSet<>(combinations());
            excluded.forEach(x -> out.remove(new TreeMap<>(x)));
            return out;
        }

        String nameOf(Map<String, String> combination) {
            return job + new TreeMap<>(combination).values().stream().map(v -> "-" + v).collect(Collectors.joining());
        }

        String config(boolean downstream) {
            StringBuilder y = new StringBuilder("version: 2.1\njobs:\n  ").append(job).append(":\n    parameters:\n");
            params.keySet().forEach(p -> y.append("      ").append(p).append(": {type: string}\n"));
            y.append("    docker: [{image: alpine}]\n    steps:\n      - run: echo");
            params.keySet().forEach(p -> y.append(" << parameters.").append(p).append(" >>"));
            y.append("\n  after:\n    docker: [{image: alpine}]\n    steps: [{run: echo done}]\n");
            y.append("workflows:\n  w:\n    jobs:\n      - ").append(job).append(":\n          matrix:\n");
            if (alias != null) {
                y.append("            alias: ").append(alias).append('\n');
            }
            y.append("            parameters:\n");
            params.forEach((p, vs) -> y.append("              ").append(p).append(": [")
                    .append(vs.stream().map(v -> '"' + v + '"').collect(Collectors.joining(", "))).append("]\n"));
            if (!excluded.isEmpty()) {
                y.append("            exclude:\n");
                for (Map<String, String> x : excluded) {
                    y.append("              - {").append(x.entrySet().stream()
                            .map(e -> e.getKey() + ": \"" + e.getValue() + '"').collect(Collectors.joining(", ")))
                            .append("}\n");
                }
            }
            if (downstream) {
                y.append("      - after:\n          requires: [").append(alias != null ? alias : job).append("]\n");
            }
            return y.toString();
        }
    }

    @Property(tries = 200)
    void matrix_expands_to_the_product_minus_exclusions(@ForAll("matrices") Model m) {
        CompileResult result = COMPILER.compile("config.yml", m.config(false), PipelineContext.defaults());
        assertThat(result.ok()).as("%s%n%s", m.config(false), result.diagnostics()).isTrue();
        List<PlanJob> instances = instancesOf(result, m.job());

        int product = m.params().values().stream().mapToInt(List::size).reduce(1, (a, b) -> a * b);
        int distinctExclusions = (int) m.excluded().stream().map(TreeMap::new).distinct().count();
        assertThat(instances).as("instances of %s", m.params()).hasSize(product - distinctExclusions);
        assertThat(instances.stream().map(PlanJob::name)).as("instance names").doesNotHaveDuplicates();

        Set<Map<String, String>> remaining = m.remaining();
        for (PlanJob j : instances) {
            Map<String, String> values = new TreeMap<>();
            j.matrix().forEach((k, v) -> values.put(k, (String) v));
            assertThat(remaining).as("combination of %s", j.name()).contains(values);
            assertThat(m.excluded()).as("excluded combinations").doesNotContain(values);
            assertThat(j.name()).isEqualTo(m.nameOf(values));
        }
        assertThat(instances.stream().map(PlanJob::name).toList())
                .as("instances in combination order")
                .containsExactlyElementsOf(remaining.stream().map(m::nameOf).toList());
    }

    @Property(tries = 150)
    void a_job_requiring_the_matrix_requires_every_instance(@ForAll("nonEmptyMatrices") Model m) {
        CompileResult result = COMPILER.compile("config.yml", m.config(true), PipelineContext.defaults());
        assertThat(result.ok()).as("%s%n%s", m.config(true), result.diagnostics()).isTrue();
        Set<String> expected = m.remaining().stream().map(m::nameOf).collect(Collectors.toSet());
        PlanJob after = workflow(result).jobs().stream().filter(j -> j.name().equals("after")).findFirst().orElseThrow();
        assertThat(after.requires().keySet()).as("requires of 'after'").containsExactlyInAnyOrderElementsOf(expected);
        assertThat(after.requires().values()).allSatisfy(s -> assertThat(s).hasSize(1));
    }

    private static PlanWorkflow workflow(CompileResult result) {
        assertThat(result.plan().workflows()).hasSize(1);
        return result.plan().workflows().get(0);
    }

    private static List<PlanJob> instancesOf(CompileResult result, String job) {
        if (result.plan().workflows().isEmpty()) {
            return List.of(); // every combination excluded: the workflow has no jobs and does not run
        }
        return workflow(result).jobs().stream().filter(j -> j.job().equals(job)).toList();
    }

    @Provide
    Arbitrary<Model> matrices() {
        return models(false);
    }

    @Provide
    Arbitrary<Model> nonEmptyMatrices() {
        return models(true);
    }

    private static Arbitrary<Model> models(boolean keepOne) {
        Arbitrary<String> paramName = Arbitraries.strings().withCharRange('a', 'z').ofMinLength(1).ofMaxLength(6)
                .filter(n -> !ENTRY_KEYS.contains(n));
        Arbitrary<String> value = Arbitraries.strings().withCharRange('a', 'z').withCharRange('A', 'Z')
                .withCharRange('0', '9').ofMinLength(1).ofMaxLength(4);
        Arbitrary<List<String>> values = value.list().ofMinSize(1).ofMaxSize(4).uniqueElements();
        Arbitrary<Map<String, List<String>>> params = Arbitraries.maps(paramName, values).ofMinSize(1).ofMaxSize(3)
                .flatMap(p -> Arbitraries.shuffle(List.copyOf(p.keySet())).map(keys -> {
                    Map<String, List<String>> m = new LinkedHashMap<>();
                    keys.forEach(k -> m.put(k, p.get(k)));
                    return m;
                }));
        Arbitrary<String> job = Arbitraries.of("build", "test", "lint", "deploy");
        Arbitrary<String> alias = Arbitraries.of("all", "every-build").injectNull(0.5);
        return Combinators.combine(job, params, alias).flatAs((j, p, a) -> exclusions(p, keepOne)
                .map(ex -> new Model(j, p, ex, a)));
    }

    /** A random list of existing combinations (repeats allowed), each with its keys in random order. */
    private static Arbitrary<List<Map<String, String>>> exclusions(Map<String, List<String>> params, boolean keepOne) {
        List<Map<String, String>> all = new Model("x", params, List.of(), null).combinations();
        Arbitrary<Map<String, String>> one = Arbitraries.of(all).flatMap(c -> Arbitraries.shuffle(List.copyOf(c.keySet()))
                .map(keys -> {
                    Map<String, String> m = new LinkedHashMap<>();
                    keys.forEach(k -> m.put(k, c.get(k)));
                    return m;
                }));
        return one.list().ofMaxSize(all.size() + 1)
                .filter(ex -> !keepOne || ex.stream().map(TreeMap::new).distinct().count() < all.size());
    }
}
