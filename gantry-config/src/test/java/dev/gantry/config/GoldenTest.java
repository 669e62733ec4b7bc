package dev.gantry.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import dev.gantry.config.diag.Diagnostic;
import dev.gantry.config.orb.DirectoryOrbResolver;
import dev.gantry.config.plan.PlanJson;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.yaml.snakeyaml.Yaml;

/**
 * Golden cases: {@code golden/<case>/config.yml} compiles to {@code plan.json}, or fails with {@code errors.txt}.
 * An optional {@code context.yml} sets the pipeline context ({@code branch}, {@code tag}, {@code parameters},
 * {@code number}, {@code trigger_source}, {@code unfiltered}). Registry orbs come from {@code src/test/resources/orbs}.
 *
 * <p>Run with {@code -Dgolden.update=true} to rewrite the expectations, then review them in the diff.
 */
class GoldenTest {
    static final Path GOLDEN = Path.of("src/test/resources/golden");
    static final Path ORBS = Path.of("src/test/resources/orbs");
    private static final Set<String> CASE_FILES = Set.of("config.yml", "context.yml", "plan.json", "errors.txt");
    private static final Set<String> TOP_FILES = Set.of("SOURCES.md");
    private static final boolean UPDATE = Boolean.getBoolean("golden.update");

    static Stream<String> cases() throws IOException {
        try (Stream<Path> dirs = Files.list(GOLDEN)) {
            return dirs.filter(Files::isDirectory).map(p -> p.getFileName().toString()).sorted().toList().stream();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void compiles_to_its_expectation(String name) throws IOException {
        Path dir = GOLDEN.resolve(name);
        String text = Files.readString(dir.resolve("config.yml"), StandardCharsets.UTF_8);
        String first = render(compile(dir, text));
        String second = render(compile(dir, text));
        assertThat(second).as("compiling twice gives the same output").isEqualTo(first);

        boolean failed = first.startsWith("ERRORS\n");
        Path expectedFile = dir.resolve(failed ? "errors.txt" : "plan.json");
        Path otherFile = dir.resolve(failed ? "plan.json" : "errors.txt");
        String actual = failed ? first.substring("ERRORS\n".length()) : first;
        if (UPDATE) {
            Files.writeString(expectedFile, actual, StandardCharsets.UTF_8);
            Files.deleteIfExists(otherFile);
            return;
        }
        if (!Files.exists(expectedFile)) {
            fail(name + ": expected " + otherFile.getFileName() + " but the compile produced "
                    + expectedFile.getFileName() + ":\n" + actual);
        }
        String expected = Files.readString(expectedFile, StandardCharsets.UTF_8);
        if (!expected.equals(actual)) {
            fail(name + ": " + expectedFile.getFileName() + " differs\n" + LineDiff.of(expected, actual));
        }
    }

    @Test
    void golden_directory_has_no_orphaned_files() throws IOException {
        List<String> orphans;
        try (Stream<Path> all = Files.walk(GOLDEN, 2)) {
            orphans = all.filter(Files::isRegularFile).filter(p -> {
                Path rel = GOLDEN.relativize(p);
                String file = rel.getFileName().toString();
                return rel.getNameCount() == 1 ? !TOP_FILES.contains(file) : !CASE_FILES.contains(file);
            }).map(Path::toString).sorted().toList();
        }
        assertThat(orphans).as("files the golden test does not read").isEmpty();
        try (Stream<Path> dirs = Files.list(GOLDEN)) {
            List<String> withoutConfig = dirs.filter(Files::isDirectory)
                    .filter(d -> !Files.exists(d.resolve("config.yml"))).map(Path::toString).toList();
            assertThat(withoutConfig).as("case directories without config.yml").isEmpty();
        }
    }

    @Test
    void there_are_at_least_sixty_cases() throws IOException {
        assertThat(cases().count()).isGreaterThanOrEqualTo(60);
    }

    static CompileResult compile(Path dir, String text) throws IOException {
        ConfigCompiler compiler = ConfigCompiler.create(new DirectoryOrbResolver(ORBS), Limits.DEFAULTS);
        Map<String, Object> ctx = Map.of();
        Path contextFile = dir.resolve("context.yml");
        if (Files.exists(contextFile)) {
            Map<String, Object> loaded = new Yaml().load(Files.readString(contextFile));
            ctx = loaded == null ? Map.of() : loaded;
        }
        PipelineContext.Builder b = PipelineContext.builder();
        if (ctx.get("tag") != null) {
            b.tag(String.valueOf(ctx.get("tag")));
        } else if (ctx.get("branch") != null) {
            b.branch(String.valueOf(ctx.get("branch")));
        }
        if (ctx.get("parameters") instanceof Map<?, ?> params) {
            params.forEach((k, v) -> b.parameter(String.valueOf(k), v));
        }
        if (ctx.get("number") instanceof Number n) {
            b.number(n.longValue());
        }
        if (ctx.get("trigger_source") != null) {
            b.triggerSource(String.valueOf(ctx.get("trigger_source")));
        }
        PipelineContext context = b.build();
        return Boolean.TRUE.equals(ctx.get("unfiltered"))
                ? compiler.compileUnfiltered("config.yml", text, context)
                : compiler.compile("config.yml", text, context);
    }

    /** A plan's JSON, or "ERRORS" and the diagnostics one per line; warnings of a good plan come first. */
    static String render(CompileResult result) {
        if (!result.ok()) {
            return "ERRORS\n" + result.diagnostics().stream().map(Diagnostic::format)
                    .collect(Collectors.joining("\n", "", "\n"));
        }
        String warnings = result.warnings().stream().map(d -> "// " + d.format() + "\n").collect(Collectors.joining());
        return warnings.isEmpty() ? PlanJson.write(result.plan()) : warnings + PlanJson.write(result.plan());
    }
}
