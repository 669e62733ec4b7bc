package dev.gantry.server.dispatch;

import dev.gantry.resilience.DistressPause;
import dev.gantry.server.DurationSetting;
import dev.gantry.server.InvalidServerSettingException;
import dev.gantry.server.NumberSetting;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * When dispatch pauses itself on database distress, and how it comes back (DESIGN.md, invariant 6). Checked when
 * made, never replaced by a default. Immutable.
 *
 * @param probeEvery        how often the database's signals are read ({@value #PROBE_EVERY_VARIABLE}, default 2 s)
 * @param commitLatency     a commit slower than this is distress ({@value #COMMIT_LATENCY_VARIABLE}, default 1 s); a
 *                          probe still waiting for its commit after this long counts too
 * @param walBytesPerSecond WAL written faster than this is distress ({@value #WAL_RATE_VARIABLE}, default 128 MiB/s)
 * @param deadTuples        more dead tuples than this in the queue's tables is distress
 *                          ({@value #DEAD_TUPLES_VARIABLE}, default 200,000)
 * @param quietFor          how long every signal must be quiet before dispatch resumes
 *                          ({@value #QUIET_FOR_VARIABLE}, default 30 s)
 * @param rampFrom          the fraction of {@code ratePerSecond} dispatch resumes at ({@value #RAMP_FROM_VARIABLE},
 *                          default 0.1)
 * @param rampOver          how long the rate takes to rise to full ({@value #RAMP_OVER_VARIABLE}, default 5 min)
 * @param ratePerSecond     the starts per second, of each kind of work, that a ramp rises to; once fully resumed
 *                          dispatch is not limited ({@value #RATE_VARIABLE}, default 50)
 */
public record DispatchSettings(Duration probeEvery, Duration commitLatency, double walBytesPerSecond,
                               long deadTuples, Duration quietFor, double rampFrom, Duration rampOver,
                               double ratePerSecond) {
    public static final String PROBE_EVERY_VARIABLE = "GANTRY_DISTRESS_PROBE_EVERY";
    public static final String COMMIT_LATENCY_VARIABLE = "GANTRY_DISTRESS_COMMIT_LATENCY";
    public static final String WAL_RATE_VARIABLE = "GANTRY_DISTRESS_WAL_BYTES_PER_SECOND";
    public static final String DEAD_TUPLES_VARIABLE = "GANTRY_DISTRESS_DEAD_TUPLES";
    public static final String QUIET_FOR_VARIABLE = "GANTRY_DISTRESS_QUIET_FOR";
    public static final String RAMP_FROM_VARIABLE = "GANTRY_DISPATCH_RAMP_FROM";
    public static final String RAMP_OVER_VARIABLE = "GANTRY_DISPATCH_RAMP_OVER";
    public static final String RATE_VARIABLE = "GANTRY_DISPATCH_RATE";

    public static final Duration DEFAULT_PROBE_EVERY = Duration.ofSeconds(2);
    public static final Duration DEFAULT_COMMIT_LATENCY = Duration.ofSeconds(1);
    public static final double DEFAULT_WAL_BYTES_PER_SECOND = 128 * 1024 * 1024;
    public static final long DEFAULT_DEAD_TUPLES = 200_000;
    public static final Duration DEFAULT_QUIET_FOR = Duration.ofSeconds(30);
    public static final double DEFAULT_RAMP_FROM = 0.1;
    public static final Duration DEFAULT_RAMP_OVER = Duration.ofMinutes(5);
    public static final double DEFAULT_RATE = 50;
    /** A ramp is for coming back from distress, not a schedule. */
    public static final Duration MAX_RAMP_OVER = Duration.ofDays(1);

    public DispatchSettings {
        Objects.requireNonNull(probeEvery, "probeEvery");
        Objects.requireNonNull(commitLatency, "commitLatency");
        Objects.requireNonNull(quietFor, "quietFor");
        Objects.requireNonNull(rampOver, "rampOver");
        if (probeEvery.compareTo(Duration.ofMillis(100)) < 0 || commitLatency.compareTo(Duration.ofMillis(1)) < 0
                || !(walBytesPerSecond > 0) || deadTuples < 1 || quietFor.isNegative() || !(rampFrom > 0)
                || rampFrom > 1 || rampOver.isNegative() || rampOver.compareTo(MAX_RAMP_OVER) > 0
                || !(ratePerSecond > 0)) {
            throw new IllegalArgumentException("dispatch settings need a probe period of at least 100ms, positive "
                    + "thresholds, 0 < rampFrom <= 1, a ramp of at most 1d and a positive rate, got " + this);
        }
    }

    public static DispatchSettings defaults() {
        return new DispatchSettings(DEFAULT_PROBE_EVERY, DEFAULT_COMMIT_LATENCY, DEFAULT_WAL_BYTES_PER_SECOND,
                DEFAULT_DEAD_TUPLES, DEFAULT_QUIET_FOR, DEFAULT_RAMP_FROM, DEFAULT_RAMP_OVER, DEFAULT_RATE);
    }

    /**
     * Reads the settings from environment variables: unset means the default.
     *
     * @throws InvalidServerSettingException naming the variable and its rule
     */
    public static DispatchSettings fromEnvironment(Map<String, String> environment) {
        return new DispatchSettings(
                DurationSetting.read(environment, PROBE_EVERY_VARIABLE, DEFAULT_PROBE_EVERY, Duration.ofMillis(100),
                        Duration.ofMinutes(1), "must be a duration like 2s, from 100ms to 1m"),
                DurationSetting.read(environment, COMMIT_LATENCY_VARIABLE, DEFAULT_COMMIT_LATENCY,
                        Duration.ofMillis(1), Duration.ofMinutes(1), "must be a duration like 1s, from 1ms to 1m"),
                NumberSetting.read(environment, WAL_RATE_VARIABLE, DEFAULT_WAL_BYTES_PER_SECOND, 1, 1e15,
                        "must be a positive number of bytes per second"),
                (long) NumberSetting.read(environment, DEAD_TUPLES_VARIABLE, DEFAULT_DEAD_TUPLES, 1, 1e15,
                        "must be a positive whole number"),
                DurationSetting.read(environment, QUIET_FOR_VARIABLE, DEFAULT_QUIET_FOR, Duration.ZERO,
                        Duration.ofHours(1), "must be a duration like 30s, from 0s to 1h"),
                NumberSetting.read(environment, RAMP_FROM_VARIABLE, DEFAULT_RAMP_FROM, 0.001, 1,
                        "must be a fraction from 0.001 to 1"),
                DurationSetting.read(environment, RAMP_OVER_VARIABLE, DEFAULT_RAMP_OVER, Duration.ZERO,
                        MAX_RAMP_OVER, "must be a duration like 5m, from 0s to 1d"),
                NumberSetting.read(environment, RATE_VARIABLE, DEFAULT_RATE, 0.01, 1e6,
                        "must be a number of starts per second from 0.01 to 1000000"));
    }

    /** These settings with other thresholds (tests drive distress with small ones). */
    public DispatchSettings withThresholds(Duration commitLatency, double walBytesPerSecond, long deadTuples) {
        return new DispatchSettings(probeEvery, commitLatency, walBytesPerSecond, deadTuples, quietFor, rampFrom,
                rampOver, ratePerSecond);
    }

    /** These settings with another probe period, quiet time, ramp and rate. */
    public DispatchSettings withTimings(Duration probeEvery, Duration quietFor, double rampFrom, Duration rampOver,
                                        double ratePerSecond) {
        return new DispatchSettings(probeEvery, commitLatency, walBytesPerSecond, deadTuples, quietFor, rampFrom,
                rampOver, ratePerSecond);
    }

    /** The self-pause's policy for these settings. */
    DistressPause.Settings pause() {
        return new DistressPause.Settings(commitLatency, quietFor, rampFrom, rampOver);
    }
}
