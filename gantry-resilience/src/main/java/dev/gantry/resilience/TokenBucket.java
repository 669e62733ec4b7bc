package dev.gantry.resilience;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;

/**
 * A token bucket: tokens accrue at {@code perSecond} up to {@code burst}, and each admitted unit of work spends one.
 * The rate may change at any time (a ramp raises it, a pause sets it to zero); tokens accrued so far are kept. The
 * bucket starts full. Time from the injected clock; thread-safe.
 */
public final class TokenBucket {
    private final InstantSource clock;
    private double perSecond;
    private double burst;
    private double tokens;
    private Instant refilledAt;

    /**
     * @param perSecond tokens accrued per second, at least 0
     * @param burst     the most tokens the bucket holds, at least 1
     */
    public TokenBucket(double perSecond, double burst, InstantSource clock) {
        this.clock = clock;
        this.refilledAt = clock.instant();
        setRate(perSecond, burst);
        this.tokens = burst;
    }

    /** Changes the rate and the capacity from now on; tokens above the new capacity are dropped. */
    public synchronized void setRate(double perSecond, double burst) {
        if (!(perSecond >= 0) || !(burst >= 1) || Double.isInfinite(perSecond) || Double.isInfinite(burst)) {
            throw new IllegalArgumentException("a token bucket needs a finite rate >= 0 and a burst >= 1, got "
                    + perSecond + "/s and " + burst);
        }
        refill();
        this.perSecond = perSecond;
        this.burst = burst;
        tokens = Math.min(tokens, burst);
    }

    /** Takes one token if there is one. */
    public boolean tryTake() {
        return tryTake(1) == 1;
    }

    /** Takes as many whole tokens as there are, up to {@code wanted}; returns how many it took. */
    public synchronized int tryTake(int wanted) {
        refill();
        int taken = (int) Math.min(Math.max(0, wanted), Math.floor(tokens));
        tokens -= taken;
        return taken;
    }

    /** How long until a whole token is there: zero if one is now, {@code null} if none ever comes at rate 0. */
    public synchronized Duration untilNext() {
        refill();
        if (tokens >= 1) {
            return Duration.ZERO;
        }
        if (perSecond == 0) {
            return null;
        }
        return Duration.ofNanos((long) Math.ceil((1 - tokens) / perSecond * 1e9));
    }

    /** The most tokens the bucket holds. */
    public synchronized double burst() {
        return burst;
    }

    /** The tokens there now, with fractions. */
    public synchronized double tokens() {
        refill();
        return tokens;
    }

    private void refill() {
        Instant now = clock.instant();
        double seconds = Math.max(0, Duration.between(refilledAt, now).toNanos() / 1e9);
        tokens = Math.min(burst, tokens + seconds * perSecond);
        refilledAt = now;
    }
}
