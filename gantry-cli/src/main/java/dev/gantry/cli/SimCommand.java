package dev.gantry.cli;

import dev.gantry.sim.PolicyKind;
import dev.gantry.sim.Report;
import dev.gantry.sim.Result;
import dev.gantry.sim.Scenario;
import dev.gantry.sim.ScenarioException;
import dev.gantry.sim.Simulator;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code gantry sim SCENARIO}: runs a scenario in the simulator (virtual time, Gantry's own scheduler and fleet
 * controller) and prints the summary; {@code --compare baseline} runs the naive policies too and prints both side by
 * side. Exit 0 after a run, 1 when the scenario cannot be read (each problem as FILE:LINE:COL: error: ...).
 */
@Command(name = "sim", mixinStandardHelpOptions = true, versionProvider = GantryCommand.ManifestVersion.class,
        description = {"Run a scenario in the simulator on a virtual clock with Gantry's scheduler and autoscaler.",
            "The same scenario and seed always print the same output. See docs/simulator.md."})
final class SimCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "SCENARIO",
            description = "The scenario file, like scenarios/spike-2xlarge.yaml.")
    Path scenarioFile;

    @Option(names = "--seed", paramLabel = "N", description = "Seed of every random draw (default: ${DEFAULT-VALUE}).")
    long seed = Simulator.DEFAULT_SEED;

    @Option(names = "--out", paramLabel = "DIR",
            description = "Also write the summary, CSV time series, events and SVG charts here"
                    + " (DIR/gantry and DIR/baseline with --compare).")
    Path out;

    @Option(names = "--json", description = "Print the summary as JSON instead of a table.")
    boolean json;

    @Option(names = "--compare", paramLabel = "POLICY",
            description = "Run the same scenario and seed under other policies too; only 'baseline' exists.")
    String compare;

    @Override
    public Integer call() throws IOException {
        PrintWriter stdout = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (compare != null && !compare.equals("baseline")) {
            err.println("gantry sim: --compare takes 'baseline', got '" + compare + "'");
            err.flush();
            return 2;
        }
        Scenario scenario;
        try {
            scenario = Simulator.read(scenarioFile);
        } catch (ScenarioException e) {
            err.println(e.getMessage());
            err.flush();
            return 1;
        } catch (IOException e) {
            err.println("gantry sim: cannot read " + scenarioFile + ": " + e);
            err.flush();
            return 1;
        }
        Result gantry = Simulator.run(scenario, seed, PolicyKind.GANTRY);
        if (compare == null) {
            stdout.print(json ? Report.json(gantry) + "\n" : Report.table(gantry));
            if (out != null) {
                Report.write(gantry, out);
            }
        } else {
            Result baseline = Simulator.run(scenario, seed, PolicyKind.BASELINE);
            stdout.print(json ? Report.json(gantry, baseline) + "\n" : Report.compare(gantry, baseline));
            if (out != null) {
                Report.write(gantry, out.resolve("gantry"));
                Report.write(baseline, out.resolve("baseline"));
            }
        }
        stdout.flush();
        return 0;
    }
}
