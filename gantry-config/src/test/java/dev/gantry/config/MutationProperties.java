package dev.gantry.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.gantry.config.diag.Diagnostic;
import dev.gantry.config.orb.DirectoryOrbResolver;
import dev.gantry.config.plan.PlanJson;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;

/**
 * Robustness against broken and hostile input. The valid golden configs (those with a {@code plan.json}) are
 * mutated in their text (truncation, random characters, {@code << parameters.x >>}-style templates) or in their
 * parsed structure, re-serialized with SnakeYAML (deleted keys, replaced values, changed types, templates in values
 * and keys, subtrees duplicated many times, values wrapped in deep nesting, billion-laughs aliases, floods of
 * template openers). For every mutant, {@code compile} and {@code compileUnfiltered} return within 10 s without
 * throwing, with a plan or at least one error; every diagnostic has a 1-based position inside the text and a message
 * that is not an internal compiler error; a second compile gives the same diagnostics and plan. Hand-made hostile
 * shapes that random mutation rarely reaches are in {@link HostileConfigProperties}.
 */
class MutationProperties {
    private static final Path GOLDEN = Path.of("src/test/resources/golden");
    private static final ConfigCompiler COMPILER = ConfigCompiler.create(
            new DirectoryOrbResolver(Path.of("src/test/resources/orbs")), Limits.DEFAULTS);
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final Map<String, String> SEEDS = seeds();

    /** A structural mutation at the {@code slot}-th place (modulo the places there are) of the parsed tree. */
    sealed interface Edit {
        int slot();
    }

    record DeleteKey(int slot) implements Edit { }
    record Replace(int slot, Object value) implements Edit { }
    record ChangeType(int slot) implements Edit { }
    record Duplicate(int slot, int times, boolean deep) implements Edit { }
    record Nest(int slot, int depth, boolean maps) implements Edit { }
    record Laughs(int slot, int width, int depth) implements Edit { }
    record TemplateInto(int slot, String template, boolean key) implements Edit {
        @Override public String toString() { // floods are long: show their start
            return "TemplateInto[slot=%d, template=%.60s (%d chars), key=%s]".formatted(slot, template, template.length(), key);
        }
    }

    /** A text mutation at {@code at} ten-thousandths of the text: cut there ({@code insert} null), or insert. */
    record TextEdit(int at, String insert) { }

    /** Edits applied to a golden seed, dumped (flow or block style), then the text edits. */
    record Mutant(String seed, List<Edit> edits, boolean flow, List<TextEdit> textEdits) {
        String text() {
            String text = SEEDS.get(seed);
            if (!edits.isEmpty()) {
                List<Object> holder = new ArrayList<>(Collections.singletonList(new Yaml(new LoaderOptions()).load(text)));
                edits.forEach(e -> apply(e, holder));
                text = holder.isEmpty() ? "" : yaml(flow).dump(holder.get(0));
            }
            for (TextEdit e : textEdits) {
                int at = (int) ((long) e.at() * text.length() / 10_000);
                text = text.substring(0, at) + (e.insert() == null ? "" : e.insert() + text.substring(at));
            }
            return text;
        }
    }

    @Property(tries = 200)
    void text_mutants_compile_to_a_plan_or_to_errors(@ForAll("textMutants") Mutant m) {
        check(m.text());
    }

    @Property(tries = 250)
    void structure_mutants_compile_to_a_plan_or_to_errors(@ForAll("structureMutants") Mutant m) {
        check(m.text());
    }

    @Property(tries = 60)
    void hostile_mutants_compile_in_bounded_time(@ForAll("hostileMutants") Mutant m) {
        check(m.text());
    }

    /** Compiles {@code text} four times and checks every result; shared with {@link HostileConfigProperties}. */
    static void check(String text) {
        String shown = text.length() > 3000 ? text.substring(0, 3000) + "\n… (" + text.length() + " chars)" : text;
        CompileResult first = compile(text, false, shown);
        CompileResult unfiltered = compile(text, true, shown);
        long lines = text.lines().count() + 1;
        for (CompileResult r : List.of(first, unfiltered)) {
            assertThat(r.ok() || !r.errors().isEmpty()).as("a plan or an error").isTrue();
            for (Diagnostic d : r.diagnostics()) {
                assertThat(d.message()).as("%s%n--- for ---%n%s", d, shown).isNotBlank()
                        .doesNotStartWith("internal compiler error");
                assertThat((long) d.line()).as("line of %s", d).isBetween(1L, d.file().equals("config.yml") ? lines : Long.MAX_VALUE);
                assertThat(d.column()).as("column of %s", d).isGreaterThanOrEqualTo(1);
            }
        }
        assertSame(first, compile(text, false, shown), shown);
        assertSame(unfiltered, compile(text, true, shown), shown);
        Statistics.label("outcome").collect(first.ok() ? "ok" : "errors");
    }

    /** Compiles within the timeout; anything thrown (an OutOfMemoryError too) fails the property, not the run. */
    private static CompileResult compile(String text, boolean unfiltered, String shown) {
        PipelineContext context = PipelineContext.defaults();
        Object out = assertTimeoutPreemptively(TIMEOUT, () -> {
            try {
                return unfiltered ? COMPILER.compileUnfiltered("config.yml", text, context)
                        : COMPILER.compile("config.yml", text, context);
            } catch (Throwable t) {
                return t;
            }
        }, () -> "compile took over 10 s:\n" + shown);
        assertThat(out).as("the compile threw for%n%s", shown).isInstanceOf(CompileResult.class);
        return (CompileResult) out;
    }

    private static void assertSame(CompileResult a, CompileResult b, String shown) {
        assertThat(b.diagnostics()).as("diagnostics of a second compile of%n%s", shown).isEqualTo(a.diagnostics());
        assertThat(b.ok()).isEqualTo(a.ok());
        if (a.ok()) {
            assertThat(PlanJson.write(b.plan())).as("plan of a second compile").isEqualTo(PlanJson.write(a.plan()));
        }
    }

    // ---- structural edits of the parsed tree; a place is a map and its key, or a list and an index ----

    private static void places(Object node, List<Object[]> out, Map<Object, Boolean> seen) {
        if (out.size() > 5_000 || seen.put(node, Boolean.TRUE) != null) {
            return;
        }
        if (node instanceof Map<?, ?> m) {
            m.forEach((k, v) -> out.add(new Object[] {m, k}));
            m.values().forEach(v -> places(v, out, seen));
        } else if (node instanceof List<?> l) {
            IntStream.range(0, l.size()).forEach(i -> out.add(new Object[] {l, i}));
            l.forEach(v -> places(v, out, seen));
        }
    }

    @SuppressWarnings("unchecked")
    private static void apply(Edit edit, List<Object> holder) {
        List<Object[]> places = new ArrayList<>();
        places(holder, places, new IdentityHashMap<>());
        if (places.isEmpty()) {
            return;
        }
        Object[] place = places.get(edit.slot() % places.size());
        Map<Object, Object> map = place[0] instanceof Map<?, ?> m ? (Map<Object, Object>) m : null;
        List<Object> list = map == null ? (List<Object>) place[0] : null;
        Object key = place[1];
        Object v = map != null ? map.get(key) : list.get((Integer) key);
        Object replacement = switch (edit) {
            case DeleteKey d -> null;
            case Replace r -> r.value();
            case ChangeType c -> switch (v) {
                case Map<?, ?> m -> new ArrayList<>(m.values());
                case List<?> l -> IntStream.range(0, l.size()).boxed()
                        .collect(LinkedHashMap::new, (m, i) -> m.put("k" + i, l.get(i)), Map::putAll);
                case null -> new ArrayList<>();
                default -> new ArrayList<>(List.of(v));
            };
            case TemplateInto t -> v instanceof String s ? s + t.template() : t.template();
            case Duplicate d -> v;
            case Nest n -> {
                Object nested = v;
                for (int i = 0; i < n.depth(); i++) {
                    nested = n.maps() ? new LinkedHashMap<>(Collections.singletonMap("k", nested))
                            : new ArrayList<>(Collections.singletonList(nested));
                }
                yield nested;
            }
            case Laughs l -> {
                Object level = new ArrayList<>(Collections.singletonList(v == null ? "lol" : v));
                for (int i = 0; i < l.depth(); i++) {
                    level = new ArrayList<>(Collections.nCopies(l.width(), level));
                }
                yield level;
            }
        };
        if (edit instanceof DeleteKey) {
            Object removed = map != null ? map.remove(key) : list.remove((int) (Integer) key);
        } else if (edit instanceof TemplateInto t && t.key() && map != null) {
            map.remove(key);
            map.put(key + t.template(), v);
        } else if (edit instanceof Duplicate d) {
            boolean deep = d.deep() && size(v, 20_000 / d.times()) * d.times() <= 20_000;
            for (int i = 0; i < d.times(); i++) {
                Object copy = deep ? copy(v) : v;
                if (map != null) {
                    map.put(key + "-" + i, copy);
                } else if (list != holder) {
                    list.add((Integer) key, copy);
                }
            }
        } else if (map != null) {
            map.put(key, replacement);
        } else {
            list.set((Integer) key, replacement);
        }
    }

    /** The node count of {@code v} as a tree, counted no further than a little past {@code cap}. */
    private static long size(Object v, long cap) {
        long n = 1;
        for (Object child : v instanceof Map<?, ?> m ? m.values() : v instanceof List<?> l ? l : List.of()) {
            if (n > cap) {
                break;
            }
            n += size(child, cap - n);
        }
        return n;
    }

    private static Object copy(Object v) {
        if (v instanceof Map<?, ?> m) {
            Map<Object, Object> out = new LinkedHashMap<>();
            m.forEach((k, x) -> out.put(k, copy(x)));
            return out;
        }
        return v instanceof List<?> l ? new ArrayList<>(l.stream().map(MutationProperties::copy).toList()) : v;
    }

    private static Yaml yaml(boolean flow) {
        DumperOptions options = new DumperOptions();
        options.setDefaultFlowStyle(flow ? DumperOptions.FlowStyle.FLOW : DumperOptions.FlowStyle.BLOCK);
        options.setWidth(Integer.MAX_VALUE);
        return new Yaml(options);
    }

    // ---- generators ----

    @Provide
    Arbitrary<Mutant> textMutants() {
        Arbitrary<Integer> at = Arbitraries.integers().between(0, 10_000);
        Arbitrary<String> chars = Arbitraries.oneOf(Arbitraries.strings().withChars(":-[]{}&*!|>'\"%@`#,?\n\t \\<")
                .withCharRange('a', 'z').ofMinLength(1).ofMaxLength(8), Arbitraries.strings().all().ofMinLength(1).ofMaxLength(3));
        Arbitrary<TextEdit> edit = Arbitraries.frequencyOf(Tuple.of(1, at.map(a -> new TextEdit(a, null))),
                Tuple.of(2, Combinators.combine(at, chars).as(TextEdit::new)),
                Tuple.of(2, Combinators.combine(at, templates()).as(TextEdit::new)));
        return Combinators.combine(seedNames(), edit.list().ofMinSize(1).ofMaxSize(3))
                .as((seed, es) -> new Mutant(seed, List.of(), false, es));
    }

    @Provide
    Arbitrary<Mutant> structureMutants() {
        Arbitrary<Integer> slot = Arbitraries.integers().between(0, 100_000);
        return mutants(Arbitraries.oneOf(slot.map(DeleteKey::new), Combinators.combine(slot, values()).as(Replace::new),
                slot.map(ChangeType::new), Combinators.combine(slot, templates(), Arbitraries.of(true, false))
                        .as(TemplateInto::new)), 3);
    }

    @Provide
    Arbitrary<Mutant> hostileMutants() {
        Arbitrary<Integer> slot = Arbitraries.integers().between(0, 100_000);
        Arbitrary<Boolean> bool = Arbitraries.of(true, false);
        return mutants(Arbitraries.oneOf(
                Combinators.combine(slot, Arbitraries.integers().between(2, 300), bool).as(Duplicate::new),
                Combinators.combine(slot, Arbitraries.integers().between(10, 500), bool).as(Nest::new),
                Combinators.combine(slot, Arbitraries.integers().between(2, 10), Arbitraries.integers().between(2, 9))
                        .as(Laughs::new),
                Combinators.combine(slot, templates(), Arbitraries.integers().between(100, 20_000))
                        .as((at, t, n) -> new TemplateInto(at, t.repeat(n) + ">>", false))), 2);
    }

    private static Arbitrary<Mutant> mutants(Arbitrary<Edit> edit, int most) {
        return Combinators.combine(seedNames(), edit.list().ofMinSize(1).ofMaxSize(most), Arbitraries.of(true, false))
                .as((seed, es, flow) -> new Mutant(seed, es, flow, List.of()));
    }

    private static Arbitrary<String> seedNames() {
        return Arbitraries.of(List.copyOf(SEEDS.keySet()));
    }

    private static Arbitrary<String> templates() {
        Arbitrary<String> ref = Combinators.combine(Arbitraries.of("<< ", "<<", "<<# ", "<<^ ", "<</ ", "\\<< "),
                Arbitraries.of("parameters.", "pipeline.", "pipeline.parameters.", "pipeline.git.", "matrix."),
                Arbitraries.of("x", "version", "steps", "node", "executor", "branch", "number", "id", "tag", "a.b"),
                Arbitraries.of(" >>", ">>", "")).as((open, ns, name, close) -> open + ns + name + close);
        Arbitrary<String> section = Combinators.combine(Arbitraries.of("#", "^"), Arbitraries.of("parameters.x",
                "pipeline.parameters.x", "parameters.steps")).as((k, r) -> "<<" + k + " " + r + " >>body<</ " + r + " >>");
        return Arbitraries.oneOf(ref, section);
    }

    private static Arbitrary<Object> values() {
        Arbitrary<Object> scalar = Arbitraries.oneOf(Arbitraries.strings().alpha().numeric().ofMaxLength(8)
                .map(s -> (Object) s), Arbitraries.longs().map(l -> (Object) l), Arbitraries.doubles().map(d -> (Object) d),
                Arbitraries.of(true, false).map(b -> (Object) b), Arbitraries.<Object>just(null));
        Arbitrary<Object> list = scalar.list().ofMaxSize(3).map(l -> (Object) new ArrayList<>(l));
        Arbitrary<Object> map = Arbitraries.maps(Arbitraries.strings().alpha().ofMinLength(1).ofMaxLength(6), scalar)
                .ofMaxSize(3).map(m -> (Object) new LinkedHashMap<>(m));
        return Arbitraries.frequencyOf(Tuple.of(4, scalar), Tuple.of(1, list), Tuple.of(1, map));
    }

    private static Map<String, String> seeds() {
        try (Stream<Path> dirs = Files.list(GOLDEN)) {
            Map<String, String> out = new TreeMap<>();
            for (Path d : dirs.filter(d -> Files.exists(d.resolve("plan.json"))).toList()) {
                out.put(d.getFileName().toString(), Files.readString(d.resolve("config.yml")));
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
