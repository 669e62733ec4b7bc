package dev.gantry.bench.config;

import dev.gantry.bench.Suite;
import dev.gantry.config.CompileResult;
import dev.gantry.config.ConfigCompiler;
import dev.gantry.config.PipelineContext;
import java.io.PrintStream;
import java.util.Collection;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.yaml.snakeyaml.Yaml;

/**
 * Runs {@link ConfigCompileBenchmark} and reports, per benchmark, the median of the measured iterations.
 *
 * <p>The final line is {@code RESULT configs_per_s=N yaml_floor_ratio=X}: the median-config compile throughput, and
 * the worse (larger) over the two inputs of compile time divided by SnakeYAML load time.
 */
public final class ConfigSuite implements Suite {
    private static final String[] ORDER = {"compileMedian", "compileLarge", "yamlLoadMedian", "yamlLoadLarge"};

    @Override
    public String name() {
        return "config";
    }

    @Override
    public String description() {
        return "config compiler throughput on a median real config and a 2,000-line one, vs SnakeYAML alone";
    }

    @Override
    public int run(boolean quick, PrintStream out, PrintStream err) throws Exception {
        check(ConfigCompileBenchmark.MEDIAN, err);
        check(ConfigCompileBenchmark.LARGE, err);
        Options options = new OptionsBuilder()
                .include(Pattern.quote(ConfigCompileBenchmark.class.getName()) + "\\.")
                .forks(quick ? 1 : 2)
                .warmupIterations(quick ? 2 : 5)
                .warmupTime(TimeValue.seconds(quick ? 1 : 2))
                .measurementIterations(quick ? 3 : 5)
                .measurementTime(TimeValue.seconds(quick ? 1 : 2))
                .threads(1)
                .jvmArgsAppend(forkJvmArgs())
                .shouldFailOnError(true)
                .build();
        Collection<RunResult> results = new Runner(options).run();

        Map<String, Double> opsPerSecond = new HashMap<>();
        for (RunResult r : results) {
            String benchmark = r.getParams().getBenchmark();
            opsPerSecond.put(benchmark.substring(benchmark.lastIndexOf('.') + 1),
                    r.getPrimaryResult().getStatistics().getPercentile(50));
        }
        out.println();
        out.printf(Locale.ROOT, "%-16s %16s %12s%n", "benchmark", "ops/s (median)", "µs/op");
        for (String b : ORDER) {
            double ops = opsPerSecond.getOrDefault(b, Double.NaN);
            out.printf(Locale.ROOT, "%-16s %16.1f %12.2f%n", b, ops, 1e6 / ops);
        }
        double ratio = Math.max(
                opsPerSecond.get("yamlLoadMedian") / opsPerSecond.get("compileMedian"),
                opsPerSecond.get("yamlLoadLarge") / opsPerSecond.get("compileLarge"));
        out.printf(Locale.ROOT, "RESULT configs_per_s=%d yaml_floor_ratio=%.2f%n",
                Math.round(opsPerSecond.get("compileMedian")), ratio);
        return 0;
    }

    /** A fixed heap, so GC sizing does not drift between forks; and JMH's Unsafe use kept quiet on JDK 24+. */
    private static String[] forkJvmArgs() {
        return Runtime.version().feature() >= 24
                ? new String[] {"-Xms1g", "-Xmx1g", "--sun-misc-unsafe-memory-access=allow"}
                : new String[] {"-Xms1g", "-Xmx1g"};
    }

    /** Warns when an input does not compile: the figures would then time the error path, not a real compile. */
    private static void check(String input, PrintStream err) {
        String text = ConfigCompileBenchmark.resource(input);
        new Yaml().load(text); // fails fast here rather than in every forked iteration
        CompileResult result = ConfigCompiler.create().compile(input, text, PipelineContext.defaults());
        if (!result.ok()) {
            err.printf("warning: %s does not compile (%d errors; first: %s); its figures time the error path%n",
                    input, result.errors().size(), result.errors().getFirst().format());
        }
    }
}
