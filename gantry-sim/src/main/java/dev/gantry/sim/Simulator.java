package dev.gantry.sim;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The simulator's façade: read a scenario, run it under Gantry's policies or the baseline's. A run is a pure
 * function of the scenario and the seed: the same inputs give byte-identical reports. Thread-safe: each run has its
 * own state.
 */
public final class Simulator {
    /** The seed used when none is given. */
    public static final long DEFAULT_SEED = 1;

    private Simulator() {
    }

    /**
     * The scenario in {@code file}.
     *
     * @throws ScenarioException naming every problem as file:line:column
     */
    public static Scenario read(Path file) throws IOException {
        return ScenarioReader.read(file.toString(), Files.readString(file));
    }

    /** Runs {@code scenario} under {@code policy}; takes seconds for a simulated day. */
    public static Result run(Scenario scenario, long seed, PolicyKind policy) {
        return new Simulation(scenario, seed, policy).run();
    }
}
