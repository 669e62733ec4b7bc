package dev.gantry.bench;

import java.io.PrintStream;
import java.util.OptionalLong;

/** A named benchmark that {@link BenchMain} can run. */
public interface Suite {

    /** The name on the command line, like {@code config}. */
    String name();

    /** One line for the list of known benchmarks. */
    String description();

    /**
     * Runs the benchmark, printing progress, a table and a final {@code RESULT} line to {@code out}, and notes that
     * qualify the figures to {@code err}.
     *
     * @param quick a short run (at most a few minutes) for smoke tests; its figures are rough
     * @return the exit code: 0 when the run completed
     */
    int run(boolean quick, PrintStream out, PrintStream err) throws Exception;

    /**
     * As {@link #run(boolean, PrintStream, PrintStream)}, with the seed given by {@code --seed} for suites whose
     * choices are drawn at random (chaos); the others draw none and ignore it.
     */
    default int run(boolean quick, OptionalLong seed, PrintStream out, PrintStream err) throws Exception {
        return run(quick, out, err);
    }
}
