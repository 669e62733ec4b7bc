package dev.gantry.sim;

import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * Draws from the lognormal distribution of a {@link Scenario.Spread}, as {@code SimulatedProvider} does for
 * provisioning latency.
 */
final class Lognormal {
    /** z for the 95th percentile of a standard normal distribution. */
    private static final double Z95 = 1.6448536269514722;

    private Lognormal() {
    }

    static Duration draw(Scenario.Spread spread, RandomGenerator random) {
        long median = spread.median().toMillis();
        // Box–Muller from the seeded generator, so the sequence is the same on every JDK; both draws always made.
        double u1 = 1 - random.nextDouble();
        double u2 = random.nextDouble();
        if (median == 0) {
            return Duration.ZERO;
        }
        double sigma = Math.log((double) spread.p95().toMillis() / median) / Z95;
        double gaussian = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
        return Duration.ofMillis(Math.round(median * Math.exp(sigma * gaussian)));
    }
}
