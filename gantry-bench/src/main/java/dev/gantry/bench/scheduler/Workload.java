package dev.gantry.bench.scheduler;

import dev.gantry.scheduler.ResourceClass;
import dev.gantry.scheduler.ResourceClasses;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;

/**
 * What arrives: classes, organisations, durations, and what the scheduler is told about durations. Draws from the
 * {@link Random} it is given, so the sequence depends only on the seed.
 *
 * <ul>
 *   <li>Classes: the default classes that fit a 16-vCPU instance, weighted as CI traffic tends to be (mostly small
 *       and medium): small 20 %, medium 35 %, medium+ 10 %, large 20 %, xlarge 10 %, 2xlarge 5 %. 2xlarge+ (20 vCPU)
 *       is left out because it fits no instance of this fleet; it would only wait.</li>
 *   <li>Durations: log-normal, median 6 minutes, σ = 1 (mean about 10 minutes), cut to [30 s, 3 h].</li>
 *   <li>Expected durations: 80 % of jobs have one, the true duration times a log-normal error (σ = 0.25); the
 *       other 20 % have none, so they are never backfilled.</li>
 *   <li>Organisations: 100, Zipf-weighted (the largest sends about a fifth of the jobs). The largest is limited to
 *       its mean number of running jobs, so it runs at its limit about half the time and builds a backlog; the next
 *       two are limited to 1.15 × theirs, so their limits bind now and then.</li>
 * </ul>
 */
final class Workload {
    private static final ResourceClasses CLASSES = ResourceClasses.defaults();
    private static final List<ResourceClass> MIX = List.of(CLASSES.get("small"), CLASSES.get("medium"),
            CLASSES.get("medium+"), CLASSES.get("large"), CLASSES.get("xlarge"), CLASSES.get("2xlarge"));
    private static final double[] MIX_WEIGHTS = {0.20, 0.35, 0.10, 0.20, 0.10, 0.05};
    private static final double MEDIAN_DURATION_S = 360;
    private static final double DURATION_SIGMA = 1.0;
    private static final long MIN_DURATION_S = 30;
    private static final long MAX_DURATION_S = 3 * 3600;
    private static final int ORGS = 100;

    private final Random random;
    private final double[] orgCumulative = new double[ORGS];

    Workload(Random random) {
        this.random = random;
        double sum = 0;
        for (int k = 0; k < ORGS; k++) {
            sum += 1.0 / (k + 1);
            orgCumulative[k] = sum;
        }
        for (int k = 0; k < ORGS; k++) {
            orgCumulative[k] /= sum;
        }
    }

    /** Mean vCPU of an arriving job. */
    static double meanVcpu() {
        double mean = 0;
        for (int k = 0; k < MIX.size(); k++) {
            mean += MIX_WEIGHTS[k] * MIX.get(k).vcpu();
        }
        return mean;
    }

    /** Mean duration in seconds of the log-normal before it is cut (the cut moves it by well under 1 %). */
    static double meanDurationSeconds() {
        return MEDIAN_DURATION_S * Math.exp(DURATION_SIGMA * DURATION_SIGMA / 2);
    }

    /**
     * Concurrency limits of the three largest organisations: 1.0, 1.15 and 1.15 × their expected running jobs at
     * {@code runningJobs} running in all.
     */
    Map<String, Integer> limits(double runningJobs) {
        Map<String, Integer> limits = new HashMap<>();
        for (int k = 0; k < 3; k++) {
            double share = orgCumulative[k] - (k == 0 ? 0 : orgCumulative[k - 1]);
            limits.put(org(k), (int) Math.round((k == 0 ? 1.0 : 1.15) * share * runningJobs));
        }
        return Map.copyOf(limits);
    }

    ResourceClass resourceClass() {
        double u = random.nextDouble();
        for (int k = 0; k < MIX.size() - 1; k++) {
            u -= MIX_WEIGHTS[k];
            if (u < 0) {
                return MIX.get(k);
            }
        }
        return MIX.getLast();
    }

    String organization() {
        double u = random.nextDouble();
        for (int k = 0; k < ORGS; k++) {
            if (u < orgCumulative[k]) {
                return org(k);
            }
        }
        return org(ORGS - 1);
    }

    /** How long the job will really run, in whole seconds. */
    long durationSeconds() {
        double d = MEDIAN_DURATION_S * Math.exp(DURATION_SIGMA * random.nextGaussian());
        return Math.clamp(Math.round(d), MIN_DURATION_S, MAX_DURATION_S);
    }

    /** What the scheduler is told the job will take, from its history; empty when the history says nothing. */
    Optional<Duration> expected(long actualSeconds) {
        if (random.nextDouble() < 0.2) {
            return Optional.empty();
        }
        return Optional.of(Duration.ofSeconds(Math.round(actualSeconds * Math.exp(0.25 * random.nextGaussian()))));
    }

    /** Seconds to the next arrival of a Poisson process with {@code ratePerSecond}. */
    double interArrival(double ratePerSecond) {
        return -Math.log(1 - random.nextDouble()) / ratePerSecond;
    }

    private static String org(int k) {
        return "org-%03d".formatted(k);
    }
}
