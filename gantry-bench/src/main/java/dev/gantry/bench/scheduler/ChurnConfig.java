package dev.gantry.bench.scheduler;

import java.time.Duration;

/**
 * The churn workload of {@code bench scheduler}. Every figure is fixed here, so that two runs at the same commit
 * simulate the same jobs.
 *
 * @param instances      ready instances in the fleet, all of one type ({@value #VCPU} vCPU)
 * @param utilisation    the share of the fleet's vCPU that arrivals keep busy on average (Little's law: arrival
 *                       rate × mean duration × mean vCPU)
 * @param warmupRounds   rounds (one virtual second each) run before measuring, to reach steady churn from an empty
 *                       fleet and to warm the JIT up
 * @param measuredRounds rounds whose decisions and packing are measured
 * @param solverSnapshots how many snapshots of the running jobs, evenly spread over the measured rounds, Timefold
 *                       packs
 * @param solverLimit    Timefold's time limit per snapshot
 * @param seed           the seed of every random draw
 */
record ChurnConfig(int instances, double utilisation, int warmupRounds, int measuredRounds, int solverSnapshots,
                   Duration solverLimit, long seed) {
    /** vCPU per instance; memory (2 GB per vCPU) and disk (10 GB per vCPU) follow the default classes' shape. */
    static final int VCPU = 16;

    static ChurnConfig full() {
        return new ChurnConfig(5_000, 0.75, 5_400, 3_600, 3, Duration.ofSeconds(30), 5L);
    }

    static ChurnConfig quick() {
        return new ChurnConfig(5_000, 0.75, 3_600, 600, 1, Duration.ofSeconds(5), 5L);
    }
}
