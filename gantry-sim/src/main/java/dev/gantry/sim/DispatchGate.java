package dev.gantry.sim;

import dev.gantry.resilience.DistressPause;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Optional;

/**
 * Gantry's dispatcher in front of a queue database: the self-pause ({@link DistressPause}) sees every write's outcome,
 * and jobs start at most at the job queue's rate ({@code dispatch_per_second}) scaled by the pause's ramp, from a
 * token bucket that holds at most a second's worth. Called from the event loop only.
 */
final class DispatchGate {
    private final Resilience.GantrySettings settings;
    private final InstantSource clock;
    private final DistressPause pause;
    private double tokens;
    private Instant tokensAt;
    private boolean wasPaused;

    DispatchGate(Resilience.GantrySettings settings, InstantSource clock) {
        this.settings = settings;
        this.clock = clock;
        this.pause = new DistressPause(settings.pause(), clock);
        this.tokensAt = clock.instant();
    }

    /** Records a write's outcome; returns the event to log if it paused or resumed dispatch. */
    Optional<String> recordWrite(QueueDatabase.Outcome outcome) {
        pause.recordWrite(outcome.committed(), outcome.latency());
        return pauseChange();
    }

    /** The event to log if dispatch paused or resumed since the last look. */
    Optional<String> pauseChange() {
        boolean paused = pause.paused();
        if (paused == wasPaused) {
            return Optional.empty();
        }
        wasPaused = paused;
        return Optional.of(paused ? "PAUSED dispatch: the queue database is distressed"
                : "RESUMED dispatch: ramping from " + Math.round(settings.pause().rampFrom() * 100)
                + " % to full over " + settings.pause().rampOver().toMinutes() + " min");
    }

    /** How many jobs may start now. */
    int allowance() {
        Instant now = clock.instant();
        double rate = settings.dispatchPerSecond();
        tokens = Math.min(Math.max(1, rate), tokens
                + Duration.between(tokensAt, now).toMillis() / 1000.0 * rate * pause.allowedFraction());
        tokensAt = now;
        return (int) tokens;
    }

    /** When no job may start: how long until one may (a second while paused, to look again). */
    Duration untilNextToken() {
        double rate = settings.dispatchPerSecond() * pause.allowedFraction();
        return rate == 0 ? Duration.ofSeconds(1)
                : Duration.ofMillis(Math.max(1, (long) Math.ceil((1 - tokens) / rate * 1000)));
    }

    /** A job started: it took a token. */
    void started() {
        tokens--;
    }

    /** How many times dispatch has paused itself. */
    int pauses() {
        return pause.pauses();
    }
}
