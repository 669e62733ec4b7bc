package dev.gantry.db;

import dev.gantry.resilience.Backoff;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.random.RandomGenerator;

/**
 * Keeps a server running: every {@code checkEvery} it asks whether the postmaster is alive and, once it is not (an
 * operator's {@code kill -9}, the OOM killer), starts it again, at once and then, while starts fail, after
 * {@link #RESTART_BACKOFF} waits, for as long as it takes. Each death, failed start and restart is logged.
 *
 * <p>It polls rather than waiting on {@link ProcessHandle#onExit()}: the postmaster is not this JVM's child (pg_ctl
 * starts it and exits), and for a non-child the JDK polls too, up to 5 s apart, and takes an unreaped zombie for alive.
 *
 * <p>One thread of its own. {@link #close()} stops it and waits for a start under way to end, so that nothing starts a
 * server once its owner has begun to stop it.
 */
final class PostmasterSupervisor implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PostmasterSupervisor.class);
    /** 0.5 s doubling to 10 s: a server that can start again is back within seconds, one that cannot is not hammered. */
    static final Backoff RESTART_BACKOFF = new Backoff(Duration.ofMillis(500), Duration.ofSeconds(10));

    private final String server;
    private final BooleanSupplier alive;
    private final Runnable restart;
    private final Duration checkEvery;
    private final Backoff backoff;
    private final RandomGenerator random;
    private final CountDownLatch closing = new CountDownLatch(1);
    private final Thread thread;

    /**
     * @param server  names the server in the log, e.g. "the embedded PostgreSQL in /home/ci/.gantry/postgres"
     * @param alive   whether the postmaster runs; cheap, called every {@code checkEvery}
     * @param restart starts the server again, or throws; called only once {@code alive} said no
     */
    PostmasterSupervisor(String server, BooleanSupplier alive, Runnable restart, Duration checkEvery,
                         Backoff backoff, RandomGenerator random) {
        this.server = Objects.requireNonNull(server, "server");
        this.alive = Objects.requireNonNull(alive, "alive");
        this.restart = Objects.requireNonNull(restart, "restart");
        this.checkEvery = Objects.requireNonNull(checkEvery, "checkEvery");
        this.backoff = Objects.requireNonNull(backoff, "backoff");
        this.random = Objects.requireNonNull(random, "random");
        // A daemon: an owner that never closes must not keep the JVM alive; its shutdown hook stops the server.
        this.thread = Thread.ofPlatform().name("gantry-postgres-supervisor").daemon().unstarted(this::superviseLoop);
    }

    PostmasterSupervisor start() {
        thread.start();
        return this;
    }

    /** Stops supervising; waits for a start under way to end. Idempotent. */
    @Override
    public void close() {
        closing.countDown();
        if (Thread.currentThread() == thread) {
            return;
        }
        try {
            thread.join();
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private void superviseLoop() {
        while (pause(checkEvery)) {
            if (!alive.getAsBoolean()) {
                restartUntilRunning();
            }
        }
    }

    private void restartUntilRunning() {
        long diedAt = System.nanoTime();
        LOG.warn("The postmaster of {} is gone; starting it again (its crash recovery replays the WAL)", server);
        for (int failures = 0; !isClosing(); ) {
            try {
                restart.run();
                LOG.info("Restarted {} {} ms after its postmaster was found gone{}", server,
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - diedAt),
                        failures == 0 ? "" : ", after " + failures + " failed starts");
                return;
            } catch (RuntimeException failure) {
                Duration wait = backoff.delay(++failures, random);
                LOG.warn("Starting {} again failed ({} in a row); next attempt in {} ms: {}", server, failures,
                        wait.toMillis(), failure.getMessage());
                if (!pause(wait)) {
                    return;
                }
            }
        }
    }

    /** Waits {@code time}; false if closed meanwhile. */
    private boolean pause(Duration time) {
        try {
            return !closing.await(time.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException interrupted) {
            return false;
        }
    }

    private boolean isClosing() {
        return closing.getCount() == 0;
    }
}
