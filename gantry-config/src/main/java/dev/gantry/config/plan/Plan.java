package dev.gantry.config.plan;

import java.util.List;

/**
 * The compiled, fully expanded form of a config for one pipeline context: the workflows that run and their job
 * instances. Executors consume this and never re-read YAML.
 *
 * @param setup true for a setup config ({@code setup: true}), whose workflow continues the pipeline
 */
public record Plan(boolean setup, List<PlanWorkflow> workflows) {
    public Plan {
        workflows = List.copyOf(workflows);
    }
}
