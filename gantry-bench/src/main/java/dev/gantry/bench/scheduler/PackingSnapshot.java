package dev.gantry.bench.scheduler;

import dev.gantry.scheduler.Resources;
import java.util.List;

/**
 * The jobs running at one round of the churn run and how placement packed them.
 *
 * @param demands      what each running job holds
 * @param ourInstances instances with at least one job, as placement left them
 * @param lowerBound   ceil(total vCPU ÷ vCPU per instance)
 */
record PackingSnapshot(int round, List<Resources> demands, int ourInstances, int lowerBound) {
    PackingSnapshot {
        demands = List.copyOf(demands);
    }
}
