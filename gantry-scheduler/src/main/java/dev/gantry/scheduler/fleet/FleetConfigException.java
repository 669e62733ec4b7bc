package dev.gantry.scheduler.fleet;

import java.util.List;
import java.util.stream.Collectors;

/**
 * A fleet file that cannot be used, with every problem found (not just the first), each naming its position.
 * The message is the problems, one a line, in the form {@code fleet.yml:12:7: error: what is wrong}.
 */
public final class FleetConfigException extends IllegalArgumentException {
    /** One problem at a 1-based line and column of {@code file}. */
    public record Problem(String file, int line, int column, String message) {
        @Override
        public String toString() {
            return file + ":" + line + ":" + column + ": error: " + message;
        }
    }

    private final transient List<Problem> problems;

    public FleetConfigException(List<Problem> problems) {
        super(problems.stream().map(Problem::toString).collect(Collectors.joining("\n")));
        this.problems = List.copyOf(problems);
    }

    public List<Problem> problems() {
        return problems;
    }
}
