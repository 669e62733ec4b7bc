package dev.gantry.sim;

import java.util.List;

/**
 * What one run measured. Waits are in seconds; a job still waiting at the end counts with the wait it has had so far,
 * so a starving class cannot hide by never starting.
 *
 * @param workloads per workload, in scenario order
 * @param samples   the time series: one row per window and workload
 * @param fleet     the time series of the fleet: one row per window and instance type (instances paid for, up or
 *                  starting, at the window's end)
 * @param events    the policy's autoscaling events, one line each, with their virtual time
 */
public record Result(String scenario, String policy, long seed, long runForSeconds, List<WorkloadSummary> workloads,
                     Totals totals, List<Sample> samples, List<FleetSample> fleet, List<String> events) {

    /**
     * One workload's figures. {@code instancesAvg} and {@code cost} are its share of the fleet's, by the vCPU-seconds
     * its jobs ran (idle capacity is shared out the same way).
     */
    public record WorkloadSummary(String name, String resourceClass, double waitP50, double waitP95, double waitP99,
                                  double waitMax, long jobsDone, long started, long stillWaiting,
                                  double instancesAvg, double cost) {
    }

    /**
     * The fleet over the run: instances paid for on average, their cost, and the lower bound: the instances the work
     * done would need if packed perfectly onto the largest type of each pool for the whole run.
     */
    public record Totals(double instancesAvg, double cost, double utilisation, double lowerBoundInstances) {
    }

    /** One window of one workload: jobs pending at its end, jobs started in it and their waits. */
    public record Sample(long timeSeconds, String workload, int pending, int started, double waitP50,
                         double waitP95, double waitMax) {
    }

    public record FleetSample(long timeSeconds, String type, int instances) {
    }
}
