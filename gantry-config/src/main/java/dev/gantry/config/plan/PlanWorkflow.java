package dev.gantry.config.plan;

import java.util.List;

/** One workflow of a plan, with its job instances in declaration order (names are unique within it). */
public record PlanWorkflow(String name, List<PlanJob> jobs) {
    public PlanWorkflow {
        jobs = List.copyOf(jobs);
    }
}
