package dev.gantry.sim;

import java.util.List;
import java.util.Optional;

/**
 * What one run measured. Waits are in seconds; a job still waiting at the end counts with the wait it has had so far,
 * so a starving class cannot hide by never starting.
 *
 * @param workloads per workload, in scenario order
 * @param samples   the time series: one row per window and workload
 * @param fleet     the time series of the fleet: one row per window and instance type (instances paid for, up or
 *                  starting, at the window's end)
 * @param events    the policy's autoscaling events (and, with a database, its pauses), one line each, with their
 *                  virtual time
 * @param faults    with a queue database in the scenario: what its failures did
 */
public record Result(String scenario, String policy, long seed, long runForSeconds, List<WorkloadSummary> workloads,
                     Totals totals, List<Sample> samples, List<FleetSample> fleet, List<String> events,
                     Optional<FaultSummary> faults, Optional<PoolSummary> pool) {

    /**
     * The shared pool of workers for calls out: per destination what its calls came to and the most workers it held,
     * and the job-start latency (arrival to the agent having the job) of jobs that arrived outside and during an
     * endpoint's failure, in seconds.
     */
    public record PoolSummary(int workers, List<DestinationSummary> destinations, double startMeanOutside,
                              double startP95Outside, double startMeanDuring, double startP95During,
                              List<PoolSample> samples) {
        /** The mean job-start latency during the failure against outside it, minus one: 0.1 is 10 % slower. */
        public double startLatencyChange() {
            return startMeanOutside == 0 ? 0 : startMeanDuring / startMeanOutside - 1;
        }
    }

    /**
     * One destination's calls: first calls, attempts (retries included), succeeded, failed for good, expired waiting
     * for a worker, refused by an open circuit breaker, and the most workers it held at once (and as a share).
     */
    public record DestinationSummary(String name, long calls, long attempts, long succeeded, long failed,
                                     long expired, long shortCircuited, int maxWorkers, double maxShare) {
    }

    /** The most workers {@code destination} held in the window ending at {@code timeSeconds}. */
    public record PoolSample(long timeSeconds, String destination, int workers) {
    }

    /**
     * What the queue database's failures did. {@code triggers} counts users' requests (retriggers included),
     * {@code pipelines} those created, {@code duplicates} pipelines created for a request that already had one,
     * {@code deduplicated} requests answered with the existing pipeline, {@code refused} requests whose client gave
     * up without a pipeline, {@code failedToStart} accepted jobs dropped after their last start attempt,
     * {@code queuedAtEnd} jobs still queued when the run ended (kept, not lost). {@code writeAttempts} per
     * {@code firstWrites} is the retry amplification; the load figures are write attempts per minute, before the
     * database degraded (mean) and after it recovered (the busiest sample window); the lists are per minute of the run.
     */
    public record FaultSummary(long triggers, long pipelines, long duplicates, long deduplicated, long refused,
                               long failedToStart, long queuedAtEnd, long retriggers, long writeAttempts,
                               long writeCommits, long firstWrites, double attemptsPerRequest,
                               double normalWritesPerMinute, double drainPeakWritesPerMinute, int pauses,
                               List<Long> attemptsPerMinute, List<Long> commitsPerMinute) {
        /** The busiest minute after recovery against the mean minute before the database degraded. */
        public double drainLoadRatio() {
            return normalWritesPerMinute == 0 ? 0 : drainPeakWritesPerMinute / normalWritesPerMinute;
        }
    }

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
