package dev.gantry.sim;

import dev.gantry.scheduler.ResourceClass;
import dev.gantry.scheduler.fleet.FleetConfig;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * What one simulation runs: the fleet (the same format as the server's fleet file), how the simulated cloud behaves,
 * the work that arrives, and how long to run. Immutable; read it with {@link ScenarioReader}. The format is in
 * docs/simulator.md.
 *
 * @param runFor      virtual time simulated; arrivals stop and the summary is taken at its end
 * @param warmUp      jobs arriving this early are run but left out of the summary: the fleet starts empty, as a
 *                    server's does on its first start, and the scenario is about what happens once it is warm
 * @param tick        how often the fleet controller (or the baseline autoscaler) runs, as the server's loop does
 * @param sampleEvery the width of the time-series windows (CSV rows, chart points)
 * @param resilience  the database and clients, and the policies' settings for them; {@link Resilience#NONE} for a
 *                    scenario about the fleet only
 */
public record Scenario(String name, String description, Duration runFor, Duration warmUp, Duration tick,
                       Duration sampleEvery, FleetConfig fleet, Cloud cloud, List<Workload> workloads,
                       Baseline baseline, Resilience resilience) {
    public Scenario {
        Objects.requireNonNull(name, "name");
        workloads = List.copyOf(workloads);
    }

    /** A lognormal distribution given by its median and 95th percentile (equal: always the median). */
    public record Spread(Duration median, Duration p95) {
        public Spread {
            if (median.isNegative() || p95.compareTo(median) < 0) {
                throw new IllegalArgumentException("needs 0 <= median <= p95, got " + median + " and " + p95);
            }
        }
    }

    /**
     * The simulated cloud: provisioning latency (per type, else the default), the chance a launch fails, and capacity
     * limits that change over time.
     */
    public record Cloud(Spread latency, List<TypeLatency> typeLatencies, double failureProbability,
                        List<CapacityChange> capacity) {
        public Cloud {
            typeLatencies = List.copyOf(typeLatencies);
            capacity = List.copyOf(capacity);
        }

        public Spread latencyOf(String type) {
            return typeLatencies.stream().filter(t -> t.type().equals(type)).map(TypeLatency::latency).findFirst()
                    .orElse(latency);
        }
    }

    public record TypeLatency(String type, Spread latency) {
    }

    /** From {@code at} on, at most {@code limit} instances of {@code type} in {@code cluster}; empty: no limit. */
    public record CapacityChange(Duration at, String cluster, String type, OptionalInt limit) {
    }

    /**
     * Jobs of one kind: their class, image (which picks the pool through the fleet's pins), arrivals and durations.
     *
     * @param name what the summary calls them; the class name unless the scenario names them
     */
    public record Workload(String name, ResourceClass resourceClass, Optional<String> image, String pool,
                           Arrivals arrivals, Spread duration) {
    }

    /**
     * When jobs arrive: a base rate per hour, evenly spaced ({@code steady}) or a Poisson process, optionally
     * swinging over the day (diurnal) and raised during spike windows.
     *
     * @param diurnalAmplitude 0 for a flat rate; a in [0, 1] makes the rate base × (1 + a cos(2π (t − peak) / 24h))
     */
    public record Arrivals(Kind kind, double perHour, double diurnalAmplitude, Duration diurnalPeak,
                           List<Spike> spikes) {
        public enum Kind { STEADY, POISSON }

        public Arrivals {
            spikes = List.copyOf(spikes);
        }

        /** Jobs per hour at {@code t} after the start. */
        public double rateAt(Duration t) {
            double hours = (t.toMillis() - diurnalPeak.toMillis()) / 3_600_000.0;
            double rate = perHour * (1 + diurnalAmplitude * Math.cos(2 * Math.PI * hours / 24));
            for (Spike s : spikes) {
                if (t.compareTo(s.from()) >= 0 && t.compareTo(s.until()) < 0) {
                    rate += s.extraPerHour();
                }
            }
            return rate;
        }

        /** An upper bound of {@link #rateAt}, for thinning. */
        public double maxRate() {
            return perHour * (1 + diurnalAmplitude) + spikes.stream().mapToDouble(Spike::extraPerHour).sum();
        }
    }

    /** Between {@code from} and {@code until}, {@code extraPerHour} more jobs per hour. */
    public record Spike(Duration from, Duration until, double extraPerHour) {
    }

    /**
     * Settings of the naive baseline: its job-count autoscaler wants one instance per {@code jobsPerInstance} jobs
     * running or pending, whatever their size.
     */
    public record Baseline(int jobsPerInstance) {
        public static final int DEFAULT_JOBS_PER_INSTANCE = 4;
    }
}
