package dev.gantry.bench;

import dev.gantry.bench.chaos.ChaosSuite;
import dev.gantry.bench.config.ConfigSuite;
import dev.gantry.bench.e2e.ContainersSuite;
import dev.gantry.bench.e2e.E2eSuite;
import dev.gantry.bench.e2e.NotifySuite;
import dev.gantry.bench.e2e.UiSuite;
import dev.gantry.bench.queue.QueueSuite;
import dev.gantry.bench.scheduler.SchedulerSuite;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * Entry point of {@code gantry-bench.jar}: {@code BenchMain NAME [--quick]} runs one suite. An unknown name lists
 * the known ones and exits 2, like any other usage error.
 */
@Command(name = "gantry bench", mixinStandardHelpOptions = true, versionProvider = BenchMain.ManifestVersion.class,
        description = "Run a benchmark suite and print its figures, ending with a RESULT line.")
public final class BenchMain implements Callable<Integer> {
    static final Map<String, Suite> SUITES = new LinkedHashMap<>();

    static {
        for (Suite s : new Suite[] {new ConfigSuite(), new QueueSuite(), new E2eSuite(), new ContainersSuite(),
                new SchedulerSuite(), new ChaosSuite(), new UiSuite(), new NotifySuite()}) {
            SUITES.put(s.name(), s);
        }
    }

    /** The version written into the jar's manifest at build time. */
    static final class ManifestVersion implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = BenchMain.class.getPackage().getImplementationVersion();
            return new String[] {"gantry-bench " + (version == null ? "(development build)" : version)};
        }
    }

    /** The known names, for the usage text. */
    static final class Names implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return SUITES.keySet().iterator();
        }
    }

    @Parameters(index = "0", paramLabel = "NAME", completionCandidates = Names.class,
            description = "The benchmark to run: ${COMPLETION-CANDIDATES}.")
    String name;

    @Option(names = "--quick", description = "A short run (a few minutes at most) for smoke tests; rough figures.")
    boolean quick;

    @Option(names = "--seed", paramLabel = "N",
            description = "The seed of a suite's random choices (chaos: faults, targets, workload); printed either way.")
    Long seed;

    private final PrintStream out;
    private final PrintStream err;

    BenchMain(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    public static void main(String[] args) {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        PrintStream err = new PrintStream(System.err, true, StandardCharsets.UTF_8);
        System.exit(new CommandLine(new BenchMain(out, err)).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        Suite suite = SUITES.get(name);
        if (suite == null) {
            err.println("unknown benchmark '" + name + "'; known benchmarks:");
            SUITES.values().forEach(s -> err.printf("  %-10s %s%n", s.name(), s.description()));
            return 2;
        }
        return suite.run(quick, seed == null ? OptionalLong.empty() : OptionalLong.of(seed), out, err);
    }
}
