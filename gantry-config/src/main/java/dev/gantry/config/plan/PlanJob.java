package dev.gantry.config.plan;

import java.util.List;
import java.util.Map;

/**
 * One job instance of a workflow, fully expanded: no parameters, commands, executors or orbs are left.
 *
 * @param name           the instance name, unique within its workflow (a matrix instance is {@code build-linux-18})
 * @param job            the job definition it came from ({@code build}, {@code node/test}); for an approval without a
 *                       definition, the same as {@code name}
 * @param requires       upstream instance name to the statuses that let this job start, in declaration order
 * @param executor       null for approval and no-op jobs
 * @param resourceClass  null for approval and no-op jobs
 * @param shell          null when the executor's default shell applies
 * @param workingDirectory null when the executor's default applies
 * @param matrix         the matrix values of this instance, empty when it is not a matrix instance
 * @param serialGroup    null unless the job is in a serial group
 */
public record PlanJob(
        String name,
        String job,
        JobType type,
        Map<String, List<RequiredStatus>> requires,
        String resourceClass,
        Executor executor,
        int parallelism,
        String shell,
        String workingDirectory,
        Map<String, String> environment,
        List<String> contexts,
        String serialGroup,
        Map<String, Object> matrix,
        List<Step> steps) {

    public PlanJob {
        requires = Maps.frozen(requires);
        environment = Maps.frozen(environment);
        matrix = Maps.frozen(matrix);
        contexts = List.copyOf(contexts);
        steps = List.copyOf(steps);
        if (parallelism < 1) {
            throw new IllegalArgumentException("parallelism must be at least 1, got " + parallelism);
        }
    }
}
