package dev.gantry.bench.queue;

import java.time.Duration;
import java.util.Locale;

/**
 * The sizes and times of one {@code bench queue} run. The same values apply to every system in the run.
 *
 * @param workers          handler threads per system (W): gantry's {@code Worker} concurrency, db-scheduler's
 *                         threads, JobRunr's worker count
 * @param burnDownMessages messages enqueued before the workers start, in the burn-down workload
 * @param burnDownTimeout  longest a burn-down may take; a slower system is reported with what it did by then
 * @param steadyFor        how long producers enqueue at the steady rate
 * @param drainTimeout     after the steady window, how long to wait for the backlog to be started and completed
 * @param steadyFraction   the steady rate as a fraction of gantry-queue's burn-down throughput
 * @param sustainedFor     how long producers keep {@code sustainedBacklog} messages waiting, to find the most a
 *                         system completes while its enqueues run beside it
 * @param sustainedBacklog messages kept waiting to start then: enough that no system's workers run dry between
 *                         producer ticks or polls
 * @param producers        producer threads in the steady workload, each enqueuing its share of the rate
 * @param producerTick     how often a producer enqueues the messages that have come due (one transaction each)
 * @param enqueueBatch     most messages per enqueue transaction (pre-enqueue, and a producer catching up)
 * @param dbSchedulerPoll  db-scheduler's polling interval: how long it waits before looking again at an empty
 *                         queue (gantry-queue's worker is woken by NOTIFY and polls at its default as a fallback)
 * @param poolSize         connections in each system's pool
 * @param warmUpMessages   the burn-down of each system's warm-up, which runs (unmeasured, on a database of its own)
 *                         before its measured workloads, so that they do not time the JIT compiling its code
 * @param warmUpSteadyFor  the steady load of each system's warm-up, at {@code steadyFraction} of its own warm-up
 *                         burn-down rate
 */
record QueueBenchConfig(int workers, int burnDownMessages, Duration burnDownTimeout, Duration steadyFor,
                        Duration drainTimeout, double steadyFraction, Duration sustainedFor, int sustainedBacklog,
                        int producers, Duration producerTick, int enqueueBatch, Duration dbSchedulerPoll, int poolSize,
                        int warmUpMessages, Duration warmUpSteadyFor) {

    static final int WORKERS = 8;
    static final double STEADY_FRACTION = 0.7;
    static final Duration DB_SCHEDULER_POLL = Duration.ofMillis(10);
    static final int POOL_SIZE = 20;
    static final int SUSTAINED_BACKLOG = 2_000;

    QueueBenchConfig {
        if (workers < 1 || burnDownMessages < 1 || warmUpMessages < 1 || sustainedBacklog < 1 || producers < 1
                || enqueueBatch < 1 || poolSize < workers + producers + 4) {
            throw new IllegalArgumentException("counts must be positive, and the pool must hold workers + producers + 4");
        }
        if (!(steadyFraction > 0 && steadyFraction <= 1)) {
            throw new IllegalArgumentException("steadyFraction must be in (0, 1], got " + steadyFraction);
        }
    }

    /**
     * The full run: 100,000 messages to burn down, 20 s at the sustained maximum, 30 s of steady load; a warm-up of
     * 20,000 and 20 s.
     */
    static QueueBenchConfig full() {
        return new QueueBenchConfig(WORKERS, 100_000, Duration.ofMinutes(8), Duration.ofSeconds(30),
                Duration.ofSeconds(60), STEADY_FRACTION, Duration.ofSeconds(20), SUSTAINED_BACKLOG, 2,
                Duration.ofMillis(5), 1_000, DB_SCHEDULER_POLL, POOL_SIZE, 20_000, Duration.ofSeconds(20));
    }

    /**
     * The quick run (under three minutes in all): 20,000 messages to burn down, 5 s at the sustained maximum (one
     * JobRunr poll interval), 10 s of steady load and up to 5 s to drain it; a warm-up of 5,000 and 3 s.
     */
    static QueueBenchConfig quick() {
        return new QueueBenchConfig(WORKERS, 20_000, Duration.ofSeconds(35), Duration.ofSeconds(10),
                Duration.ofSeconds(5), STEADY_FRACTION, Duration.ofSeconds(5), SUSTAINED_BACKLOG, 2,
                Duration.ofMillis(5), 1_000, DB_SCHEDULER_POLL, POOL_SIZE, 5_000, Duration.ofSeconds(3));
    }

    /** The warm-up's sizes: this run's, with the warm-up's burn-down and steady load in place of the measured ones. */
    QueueBenchConfig warmUp() {
        return new QueueBenchConfig(workers, warmUpMessages, burnDownTimeout, warmUpSteadyFor, drainTimeout,
                steadyFraction, sustainedFor, sustainedBacklog, producers, producerTick, enqueueBatch, dbSchedulerPoll,
                poolSize, warmUpMessages, warmUpSteadyFor);
    }

    static QueueBenchConfig of(boolean quick) {
        return quick ? quick() : full();
    }

    /** This configuration with the steady load at {@code fraction} of gantry-queue's burn-down rate. */
    QueueBenchConfig withSteadyFraction(double fraction) {
        return new QueueBenchConfig(workers, burnDownMessages, burnDownTimeout, steadyFor, drainTimeout, fraction,
                sustainedFor, sustainedBacklog, producers, producerTick, enqueueBatch, dbSchedulerPoll, poolSize,
                warmUpMessages, warmUpSteadyFor);
    }

    /** One line for the top of the report. */
    String describe() {
        return String.format(Locale.ROOT, "W=%d workers; burn-down %,d messages (timeout %ds); sustained maximum "
                        + "for %ds with %,d messages kept waiting; steady %ds at %.0f%% of gantry-queue's burn-down "
                        + "rate (and, for gantry-queue, %ds at %.0f%% of its sustained maximum) from %d producers (a "
                        + "transaction every %d ms each), drain timeout %ds; %d connections per system; each system "
                        + "warmed up first with %,d messages burnt down and %ds of steady load, unmeasured",
                workers, burnDownMessages, burnDownTimeout.toSeconds(), sustainedFor.toSeconds(), sustainedBacklog,
                steadyFor.toSeconds(), steadyFraction * 100, steadyFor.toSeconds(), steadyFraction * 100, producers,
                producerTick.toMillis(), drainTimeout.toSeconds(), poolSize, warmUpMessages,
                warmUpSteadyFor.toSeconds());
    }
}
