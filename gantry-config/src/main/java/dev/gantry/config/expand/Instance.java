package dev.gantry.config.expand;

import dev.gantry.config.plan.JobType;
import dev.gantry.config.yaml.Pos;
import dev.gantry.config.yaml.YNode;
import java.util.List;
import java.util.Map;

/**
 * One job instance of a workflow before its job is expanded: a workflow entry, or one combination of its matrix,
 * with pipeline and matrix values already substituted into its arguments.
 *
 * @param alias    the name {@code requires} can use to mean every instance of a matrix (the instance name otherwise)
 * @param def      the job definition; null for an approval job that has none
 * @param type     the type the entry asks for ({@code type: approval}); null to take the job's own
 * @param args     the entry's job arguments (its keys minus the reserved ones); null when it has none
 * @param requires the raw {@code requires} node; null when absent
 */
record Instance(
        String name,
        String alias,
        String jobName,
        Definitions.Def def,
        JobType type,
        YNode.MapNode args,
        YNode requires,
        List<String> contexts,
        String serialGroup,
        Map<String, YNode> matrix,
        YNode preSteps,
        YNode postSteps,
        Filters.Filter filter,
        Pos pos,
        String path) {
}
