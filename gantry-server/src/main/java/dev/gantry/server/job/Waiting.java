package dev.gantry.server.job;

import dev.gantry.server.run.ResourceClasses;
import java.time.Duration;
import java.time.Instant;

/**
 * Why a queued job waits, and since when, from what the agents that were seen recently offer: no agent at all, none
 * big enough for the job's class, or all that fit busy. Issue 5's fleet scheduler replaces this with its own
 * reasons and estimates; until then this is what the job's details say.
 *
 * @param reason  {@code no_agent}, {@code no_agent_big_enough} or {@code agents_busy}
 * @param forMs   how long the job has waited so far
 */
record Waiting(String reason, String message, String since, long forMs) {
    /** Agents not seen for this long (no claim, no heartbeat) count as gone. */
    static final Duration SEEN_WITHIN = Duration.ofMinutes(1);

    static Waiting of(String resourceClass, Instant queuedAt, JobDao.Agents agents, Instant now, String since) {
        ResourceClasses.Size size = ResourceClasses.size(resourceClass).orElse(new ResourceClasses.Size(0, 0));
        String needs = size.cpu() + " CPU and " + size.memoryMb() + " MiB (" + resourceClass + ")";
        long waited = queuedAt == null ? 0 : Math.max(0, Duration.between(queuedAt, now).toMillis());
        if (agents.count() == 0) {
            return new Waiting("no_agent", "no agent is connected; start one with: bin/gantry agent --server URL "
                    + "--token-file $GANTRY_HOME/agent-token", since, waited);
        }
        if (agents.bigEnough() == 0) {
            return new Waiting("no_agent_big_enough", "the job needs " + needs + "; the largest of the "
                    + agents.count() + " connected agents offers " + agents.maxCpu() + " CPU and "
                    + agents.maxMemoryMb() + " MiB", since, waited);
        }
        return new Waiting("agents_busy", "waiting for one of the " + agents.bigEnough() + " agents that can run "
                + needs + " to have that much free", since, waited);
    }
}
