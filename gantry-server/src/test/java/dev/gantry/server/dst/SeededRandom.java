package dev.gantry.server.dst;

import java.util.SplittableRandom;
import java.util.random.RandomGenerator;

/** A random generator the simulation reseeds for every seed: the queue's backoff jitter draws from it. */
final class SeededRandom implements RandomGenerator {
    private SplittableRandom random = new SplittableRandom(0);

    void reseed(long seed) {
        random = new SplittableRandom(seed);
    }

    @Override
    public long nextLong() {
        return random.nextLong();
    }
}
