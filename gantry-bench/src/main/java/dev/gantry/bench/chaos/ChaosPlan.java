package dev.gantry.bench.chaos;

import java.time.Duration;

/**
 * The size and pace of a chaos run.
 *
 * @param pipelines   workload pipelines to trigger (probes come on top)
 * @param inFlight    at most this many unfinished workload pipelines at once, so a probe queues behind a bounded
 *                    backlog and its time measures recovery, not the backlog
 * @param pace        pause between two workload triggers, to spread them over the faults
 * @param agents      agent processes (4 CPUs each, so 4 small jobs at a time)
 * @param minFaults   faults to inject at least, even once every pipeline is triggered; faults go on while the
 *                    workload still triggers
 * @param pause       how long a paused server stays stopped (SIGSTOP … SIGCONT)
 * @param gap         quiet time before each fault, drawn between {@code gap} and twice it
 * @param drain       how long to wait at the end for every pipeline to finish
 * @param sleep       seconds each workload job works (the probe's job works 0)
 */
record ChaosPlan(String name, int pipelines, int inFlight, Duration pace, int agents, int minFaults, Duration pause,
                 Duration gap, Duration drain, String sleep) {

    /** {@code bin/gantry chaos}: 1,000 pipelines, servers paused 30 s. */
    static ChaosPlan full() {
        return new ChaosPlan("full", 1_000, 24, Duration.ZERO, 3, 8, Duration.ofSeconds(30), Duration.ofSeconds(10),
                Duration.ofMinutes(5), "0.5");
    }

    /** {@code --quick}: 100 pipelines over one round of the four faults; servers paused 10 s, not 30. */
    static ChaosPlan quick() {
        return new ChaosPlan("quick", 100, 16, Duration.ofMillis(500), 3, 4, Duration.ofSeconds(10),
                Duration.ofSeconds(3), Duration.ofMinutes(3), "0.5");
    }

    /** {@code ChaosIT}: the four faults once over 40 pipelines on two agents; servers paused 8 s. */
    static ChaosPlan smoke() {
        return new ChaosPlan("smoke", 40, 10, Duration.ofMillis(700), 2, 4, Duration.ofSeconds(8),
                Duration.ofSeconds(2), Duration.ofSeconds(90), "0.3");
    }
}
