package dev.gantry.resilience;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;

/**
 * Self-protection on database distress (DESIGN.md, invariant 6): the dispatcher reports every write's outcome; a
 * failed write, or one slower than {@code latencyThreshold}, pauses starting new work. Once writes have been healthy
 * for {@code quietFor}, work resumes at {@code rampFrom} of its normal rate and rises linearly to the full rate over
 * {@code rampOver}; distress during the ramp pauses again. Triggers keep being accepted while the database takes
 * writes, so the backlog waits durably in the queue, not in clients' retries. Time from the injected clock;
 * thread-safe.
 */
public final class DistressPause {
    /**
     * @param latencyThreshold a write slower than this is distress
     * @param quietFor         how long writes must be healthy before work resumes
     * @param rampFrom         the fraction of the normal rate work resumes at, in (0, 1]
     * @param rampOver         how long the rate takes to rise from {@code rampFrom} to full
     */
    public record Settings(Duration latencyThreshold, Duration quietFor, double rampFrom, Duration rampOver) {
        public Settings {
            if (!(rampFrom > 0 && rampFrom <= 1) || latencyThreshold.isNegative() || quietFor.isNegative()
                    || rampOver.isNegative()) {
                throw new IllegalArgumentException("distress pause needs 0 < rampFrom <= 1 and non-negative"
                        + " durations, got " + this);
            }
        }
    }

    private Settings settings;
    private final InstantSource clock;
    private Instant lastDistress;
    private int pauses;

    public DistressPause(Settings settings, InstantSource clock) {
        this.settings = settings;
        this.clock = clock;
    }

    /** Records a write to the database: whether it committed and how long it took. */
    public synchronized void recordWrite(boolean committed, Duration latency) {
        if (!committed || latency.compareTo(settings.latencyThreshold()) > 0) {
            recordDistress();
        }
    }

    /** Records distress seen otherwise than in a write (WAL or dead tuples piling up): pauses, or stays paused. */
    public synchronized void recordDistress() {
        if (!paused()) {
            pauses++;
        }
        lastDistress = clock.instant();
    }

    /** Changes the settings from now on (an operator sets the ramp); a pause under way keeps its start. */
    public synchronized void setSettings(Settings settings) {
        this.settings = settings;
    }

    public synchronized Settings settings() {
        return settings;
    }

    /** Whether starting new work is paused now. */
    public synchronized boolean paused() {
        return lastDistress != null && clock.instant().isBefore(lastDistress.plus(settings.quietFor()));
    }

    /**
     * The fraction of its normal rate at which work may start now: 0 while paused, then rising linearly from
     * {@code rampFrom} to 1 over {@code rampOver}, then 1.
     */
    public synchronized double allowedFraction() {
        if (lastDistress == null) {
            return 1;
        }
        Instant resumedAt = lastDistress.plus(settings.quietFor());
        Instant now = clock.instant();
        if (now.isBefore(resumedAt)) {
            return 0;
        }
        if (settings.rampOver().isZero()) {
            return 1;
        }
        double progress = (double) Duration.between(resumedAt, now).toMillis() / settings.rampOver().toMillis();
        return Math.min(1, settings.rampFrom() + (1 - settings.rampFrom()) * progress);
    }

    /** How many times work has paused itself so far. */
    public synchronized int pauses() {
        return pauses;
    }
}
