package dev.gantry.db;

import dev.gantry.resilience.Backoff;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.random.RandomGenerator;

import static org.assertj.core.api.Assertions.assertThat;

/** The supervision loop with a stand-in postmaster (a flag) and start (a counter); milliseconds instead of seconds. */
class PostmasterSupervisorTest {
    private static final Duration CHECK_EVERY = Duration.ofMillis(5);
    private static final Backoff FAST = new Backoff(Duration.ofMillis(1), Duration.ofMillis(4));
    private static final Duration PATIENCE = Duration.ofSeconds(10);

    final AtomicBoolean alive = new AtomicBoolean(true);
    final AtomicInteger starts = new AtomicInteger();

    @Test
    void a_dead_postmaster_is_started_again_and_failed_starts_are_retried_until_one_works() throws Exception {
        int failingStarts = 3;
        try (PostmasterSupervisor supervisor = supervisor(() -> {
            if (starts.incrementAndGet() <= failingStarts) {
                throw new DatabaseStartException("shared memory still attached");
            }
            alive.set(true);
        })) {
            Thread.sleep(CHECK_EVERY.multipliedBy(10).toMillis());
            assertThat(starts).as("a live postmaster is left alone").hasValue(0);

            alive.set(false);

            assertThat(StalePostmaster.await(alive::get, PATIENCE)).isTrue();
            Thread.sleep(CHECK_EVERY.multipliedBy(10).toMillis());
            assertThat(starts).as("three failed starts and the one that worked, then no more").hasValue(4);
        }
    }

    @Test
    void close_waits_for_a_start_under_way_and_no_start_follows_it() throws Exception {
        CountDownLatch startBegan = new CountDownLatch(1);
        CountDownLatch finishStart = new CountDownLatch(1);
        PostmasterSupervisor supervisor = supervisor(() -> {
            starts.incrementAndGet();
            startBegan.countDown();
            try {
                finishStart.await();
            } catch (InterruptedException e) {
                throw new AssertionError("a start is never interrupted: it could leave a server behind", e);
            }
            throw new DatabaseStartException("did not start");
        });
        alive.set(false);
        assertThat(startBegan.await(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isTrue();

        Thread closing = Thread.ofPlatform().start(supervisor::close);
        closing.join(CHECK_EVERY.multipliedBy(20).toMillis());
        assertThat(closing.isAlive()).as("close waits for the start under way").isTrue();
        finishStart.countDown();
        closing.join(PATIENCE.toMillis());
        assertThat(closing.isAlive()).isFalse();

        Thread.sleep(CHECK_EVERY.multipliedBy(10).toMillis());
        assertThat(starts).as("the failed start is not retried after close").hasValue(1);
    }

    private PostmasterSupervisor supervisor(Runnable restart) {
        return new PostmasterSupervisor("the test server", alive::get, restart, CHECK_EVERY, FAST,
                RandomGenerator.getDefault()).start();
    }
}
