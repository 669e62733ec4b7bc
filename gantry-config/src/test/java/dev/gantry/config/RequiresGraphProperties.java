package dev.gantry.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gantry.config.plan.PlanJob;
import dev.gantry.config.plan.PlanWorkflow;
import dev.gantry.config.plan.RequiredStatus;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

/**
 * The {@code requires} graph and branch/tag filters. A random DAG of 1–15 jobs (each may require any earlier ones,
 * sometimes in the map form with statuses), some with {@code only}/{@code ignore} filters of literal names or
 * {@code /regex/}, is compiled for a random branch or tag. Every workflow of the plan must be closed (each upstream is
 * a job of the same workflow) and acyclic; a job is present exactly when its filters admit the context and all its
 * upstreams are present (computed here from the model, not from the compiler); its requires are the declared ones;
 * and {@code compileUnfiltered} keeps every job. Adding one back edge must fail the compile with exactly one error,
 * about a cycle.
 */
class RequiresGraphProperties {
    private static final ConfigCompiler COMPILER = ConfigCompiler.create();
    private static final List<String> BRANCHES = List.of("main", "dev", "feature/x", "release/1.0");
    private static final List<String> TAGS = List.of("v1.0", "v2.0-rc1", "nightly");
    private static final List<String> PATTERNS = List.of("main", "dev", "feature/x", "release/1.0", "v1.0", "nightly",
            "/.*/", "/feature/.*/", "/release/.*/", "/ma.*/", "/v1\\..*/", "/v.*/", "/d.v/", "/[a-z]+/");
    private static final List<RequiredStatus> STATUSES = List.of(RequiredStatus.values());

    /** One {@code only}/{@code ignore} rule; null lists are absent. */
    record Rule(List<String> only, List<String> ignore) {
        boolean admits(String value) {
            return (only == null || only.stream().anyMatch(p -> matches(p, value)))
                    && (ignore == null || ignore.stream().noneMatch(p -> matches(p, value)));
        }

        private static boolean matches(String pattern, String value) {
            return pattern.length() >= 2 && pattern.startsWith("/") && pattern.endsWith("/")
                    ? Pattern.matches(pattern.substring(1, pattern.length() - 1), value) : pattern.equals(value);
        }

        String yaml() {
            List<String> parts = new ArrayList<>();
            if (only != null) {
                parts.add("only: " + list(only));
            }
            if (ignore != null) {
                parts.add("ignore: " + list(ignore));
            }
            return "{" + String.join(", ", parts) + "}";
        }

        private static String list(List<String> patterns) {
            return patterns.stream().map(p -> "'" + p + "'").collect(Collectors.joining(", ", "[", "]"));
        }
    }

    /** A job of the graph: upstream index to statuses (null = the plain-name form), and its filters. */
    record Job(Map<Integer, List<RequiredStatus>> requires, Rule branches, Rule tags) {
        boolean admits(String branch, String tag) {
            return tag != null ? tags != null && tags.admits(tag) : branches == null || branches.admits(branch);
        }
    }

    record Graph(List<Job> jobs) {
        static String name(int i) {
            return "job" + i;
        }

        String config() {
            StringBuilder y = new StringBuilder("version: 2.1\njobs:\n");
            for (int i = 0; i < jobs.size(); i++) {
                y.append("  ").append(name(i)).append(": {docker: [{image: alpine}], steps: [{run: echo ")
                        .append(i).append("}]}\n");
            }
            y.append("workflows:\n  w:\n    jobs:\n");
            for (int i = 0; i < jobs.size(); i++) {
                Job j = jobs.get(i);
                List<String> args = new ArrayList<>();
                if (!j.requires().isEmpty()) {
                    args.add("requires: " + j.requires().entrySet().stream().map(e -> e.getValue() == null
                            ? name(e.getKey())
                            : "{" + name(e.getKey()) + ": " + statuses(e.getValue()) + "}")
                            .collect(Collectors.joining(", ", "[", "]")));
                }
                List<String> filters = new ArrayList<>();
                if (j.branches() != null) {
                    filters.add("branches: " + j.branches().yaml());
                }
                if (j.tags() != null) {
                    filters.add("tags: " + j.tags().yaml());
                }
                if (!filters.isEmpty()) {
                    args.add("filters: {" + String.join(", ", filters) + "}");
                }
                y.append("      - ").append(name(i));
                y.append(args.isEmpty() ? "\n" : ": {" + String.join(", ", args) + "}\n");
            }
            return y.toString();
        }

        private static String statuses(List<RequiredStatus> s) {
            return s.size() == 1 ? s.get(0).word()
                    : s.stream().map(RequiredStatus::word).collect(Collectors.joining(", ", "[", "]"));
        }

        /** The jobs that run for the context, by the rule: filters admit it and every upstream runs. */
        Set<String> expectedPresent(String branch, String tag) {
            Set<String> out = new LinkedHashSet<>();
            for (int i = 0; i < jobs.size(); i++) {
                Job j = jobs.get(i);
                if (j.admits(branch, tag) && j.requires().keySet().stream().allMatch(u -> out.contains(name(u)))) {
                    out.add(name(i));
                }
            }
            return out;
        }

        /** True when job {@code from} requires job {@code to}, directly or not. */
        boolean reaches(int from, int to) {
            return from == to || jobs.get(from).requires().keySet().stream().anyMatch(u -> reaches(u, to));
        }

        /**
         * The same graph with {@code from} (earlier) also requiring {@code to} (later); {@code to} is first made to
         * require {@code from} when it does not already, directly or through a longer path.
         */
        Graph withBackEdge(int from, int to) {
            List<Job> out = new ArrayList<>(jobs);
            if (!reaches(to, from)) {
                Job later = jobs.get(to);
                Map<Integer, List<RequiredStatus>> laterReq = new LinkedHashMap<>(later.requires());
                laterReq.put(from, null);
                out.set(to, new Job(laterReq, later.branches(), later.tags()));
            }
            Job earlier = jobs.get(from);
            Map<Integer, List<RequiredStatus>> earlierReq = new LinkedHashMap<>(earlier.requires());
            earlierReq.put(to, null);
            out.set(from, new Job(earlierReq, earlier.branches(), earlier.tags()));
            return new Graph(out);
        }
    }

    /** A context: exactly one of branch and tag. */
    record Ref(String branch, String tag) {
        PipelineContext context() {
            return tag != null ? PipelineContext.builder().tag(tag).build()
                    : PipelineContext.builder().branch(branch).build();
        }
    }

    @Property(tries = 250)
    void jobs_run_exactly_when_their_filters_and_all_upstreams_admit_the_context(
            @ForAll("graphs") Graph g, @ForAll("refs") Ref ref) {
        String config = g.config();
        CompileResult result = COMPILER.compile("config.yml", config, ref.context());
        assertThat(result.ok()).as("%s%n%s", config, result.diagnostics()).isTrue();
        result.plan().workflows().forEach(RequiresGraphProperties::assertClosedAndAcyclic);

        Set<String> expected = g.expectedPresent(ref.branch(), ref.tag());
        List<PlanJob> jobs = result.plan().workflows().stream().flatMap(w -> w.jobs().stream()).toList();
        assertThat(jobs.stream().map(PlanJob::name).toList()).as("%s%njobs for %s", config, ref)
                .containsExactlyElementsOf(expected);
        assertThat(result.plan().workflows()).as("a workflow runs iff a job does").hasSize(expected.isEmpty() ? 0 : 1);
        Statistics.label("jobs present").collect(expected.isEmpty() ? "none"
                : expected.size() == g.jobs().size() ? "all" : "some");
        jobs.forEach(j -> assertDeclaredRequires(g, j));
    }

    @Property(tries = 100)
    void compile_unfiltered_keeps_every_job(@ForAll("graphs") Graph g, @ForAll("refs") Ref ref) {
        CompileResult result = COMPILER.compileUnfiltered("config.yml", g.config(), ref.context());
        assertThat(result.ok()).as("%s%n%s", g.config(), result.diagnostics()).isTrue();
        assertThat(result.plan().workflows()).hasSize(1);
        PlanWorkflow w = result.plan().workflows().get(0);
        assertClosedAndAcyclic(w);
        assertThat(w.jobs().stream().map(PlanJob::name).toList())
                .containsExactlyElementsOf(IntStream.range(0, g.jobs().size()).mapToObj(Graph::name).toList());
        w.jobs().forEach(j -> assertDeclaredRequires(g, j));
    }

    @Property(tries = 150)
    void a_back_edge_is_exactly_one_error_about_a_cycle(@ForAll("cyclicGraphs") Graph g, @ForAll("refs") Ref ref,
                                                        @ForAll boolean unfiltered) {
        String config = g.config();
        CompileResult result = unfiltered ? COMPILER.compileUnfiltered("config.yml", config, ref.context())
                : COMPILER.compile("config.yml", config, ref.context());
        assertThat(result.ok()).as(config).isFalse();
        assertThat(result.errors()).as("%s%n%s", config, result.diagnostics()).hasSize(1);
        assertThat(result.errors().get(0).message()).contains("cycle");
        Statistics.label("cycle length").collect(result.errors().get(0).message().split("->").length - 1);
    }

    private static void assertDeclaredRequires(Graph g, PlanJob j) {
        Job declared = g.jobs().get(Integer.parseInt(j.name().substring("job".length())));
        Map<String, List<RequiredStatus>> expected = new LinkedHashMap<>();
        declared.requires().forEach((u, s) -> expected.put(Graph.name(u), s == null ? List.of(RequiredStatus.SUCCESS) : s));
        assertThat(j.requires()).as("requires of %s", j.name()).containsExactlyEntriesOf(expected);
    }

    private static void assertClosedAndAcyclic(PlanWorkflow w) {
        Map<String, PlanJob> byName = new HashMap<>();
        w.jobs().forEach(j -> assertThat(byName.put(j.name(), j)).as("duplicate job %s", j.name()).isNull());
        w.jobs().forEach(j -> assertThat(byName.keySet()).as("upstreams of %s in workflow %s", j.name(), w.name())
                .containsAll(j.requires().keySet()));
        Map<String, Integer> state = new HashMap<>();
        w.jobs().forEach(j -> assertThat(acyclicFrom(j.name(), byName, state)).as("acyclic from %s", j.name()).isTrue());
    }

    private static boolean acyclicFrom(String name, Map<String, PlanJob> byName, Map<String, Integer> state) {
        Integer s = state.get(name);
        if (s != null) {
            return s == 2;
        }
        state.put(name, 1);
        for (String up : byName.get(name).requires().keySet()) {
            if (!acyclicFrom(up, byName, state)) {
                return false;
            }
        }
        state.put(name, 2);
        return true;
    }

    @Provide
    Arbitrary<Ref> refs() {
        return Arbitraries.oneOf(Arbitraries.of(BRANCHES).map(b -> new Ref(b, null)),
                Arbitraries.of(TAGS).map(t -> new Ref(null, t)));
    }

    @Provide
    Arbitrary<Graph> graphs() {
        return Arbitraries.integers().between(1, 15).flatMap(n -> {
            List<Arbitrary<Job>> jobs = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                jobs.add(job(i));
            }
            return Combinators.combine(jobs).as(Graph::new);
        });
    }

    @Provide
    Arbitrary<Graph> cyclicGraphs() {
        return graphs().filter(g -> g.jobs().size() >= 2).flatMap(g -> {
            int n = g.jobs().size();
            return Arbitraries.integers().between(0, n - 2).flatMap(from -> Arbitraries.integers()
                    .between(from + 1, n - 1).map(to -> g.withBackEdge(from, to)));
        });
    }

    private static Arbitrary<Job> job(int index) {
        Arbitrary<List<RequiredStatus>> statuses = Arbitraries.of(STATUSES).list().ofMinSize(1).ofMaxSize(3)
                .uniqueElements().injectNull(0.6);
        Arbitrary<Map<Integer, List<RequiredStatus>>> requires = index == 0 ? Arbitraries.just(Map.of())
                : Arbitraries.integers().between(0, index - 1).set().ofMaxSize(Math.min(index, 4))
                        .flatMap(ups -> {
                            List<Integer> sorted = ups.stream().sorted().toList();
                            return statuses.list().ofSize(sorted.size()).map(ss -> {
                                Map<Integer, List<RequiredStatus>> m = new LinkedHashMap<>();
                                for (int k = 0; k < sorted.size(); k++) {
                                    m.put(sorted.get(k), ss.get(k));
                                }
                                return m;
                            });
                        });
        return Combinators.combine(requires, rule().injectNull(0.6), rule().injectNull(0.6)).as(Job::new);
    }

    private static Arbitrary<Rule> rule() {
        Arbitrary<List<String>> patterns = Arbitraries.of(PATTERNS).list().ofMinSize(1).ofMaxSize(3).uniqueElements();
        return Combinators.combine(patterns.injectNull(0.4), patterns.injectNull(0.5)).as(Rule::new)
                .filter(r -> r.only() != null || r.ignore() != null);
    }
}
