package dev.gantry.sim;

import dev.gantry.scheduler.fleet.FleetConfigException.Problem;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A scenario file that cannot be run, with every problem found, one a line, as
 * {@code scenario.yaml:12:7: error: what is wrong} (problems of its fleet section included).
 */
public final class ScenarioException extends IllegalArgumentException {
    private final transient List<Problem> problems;

    public ScenarioException(List<Problem> problems) {
        super(problems.stream().map(Problem::toString).collect(Collectors.joining("\n")));
        this.problems = List.copyOf(problems);
    }

    public List<Problem> problems() {
        return problems;
    }
}
