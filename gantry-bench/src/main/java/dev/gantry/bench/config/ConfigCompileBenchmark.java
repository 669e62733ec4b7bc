package dev.gantry.bench.config;

import dev.gantry.config.CompileResult;
import dev.gantry.config.ConfigCompiler;
import dev.gantry.config.PipelineContext;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.yaml.snakeyaml.Yaml;

/**
 * Compiles two configs, a median-size real one ({@value #MEDIAN}) and a ~2,000-line one ({@value #LARGE}), and
 * loads the same texts with plain SnakeYAML: the floor any YAML-based compiler sits on. Single thread, ops/s.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(1)
public class ConfigCompileBenchmark {
    static final String MEDIAN = "bench/median.yml";
    static final String LARGE = "bench/large.yml";

    private ConfigCompiler compiler;
    private PipelineContext context;
    private String median;
    private String large;
    private Yaml yaml;

    @Setup
    public void load() {
        yaml = new Yaml(); // built once, so the floor is the load alone: the strictest comparison for the compiler
        compiler = ConfigCompiler.create();
        context = PipelineContext.defaults();
        median = resource(MEDIAN);
        large = resource(LARGE);
    }

    @Benchmark
    public CompileResult compileMedian() {
        return compiler.compile(MEDIAN, median, context);
    }

    @Benchmark
    public CompileResult compileLarge() {
        return compiler.compile(LARGE, large, context);
    }

    @Benchmark
    public Object yamlLoadMedian() {
        return yaml.load(median);
    }

    @Benchmark
    public Object yamlLoadLarge() {
        return yaml.load(large);
    }

    /** A bundled input's text. */
    static String resource(String name) {
        try (InputStream in = ConfigCompileBenchmark.class.getClassLoader().getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("benchmark input " + name + " is not on the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read benchmark input " + name, e);
        }
    }
}
