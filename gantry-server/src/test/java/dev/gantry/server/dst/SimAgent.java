package dev.gantry.server.dst;

import dev.gantry.server.agent.AgentCalls;
import dev.gantry.server.run.TaskStatus;
import java.time.Instant;
import java.util.UUID;

/**
 * One simulated agent: what it believes it holds. A crash makes it forget (a new incarnation registers); a silent
 * agent keeps its task but calls nothing until {@link #silentUntil}. Single-threaded.
 */
final class SimAgent {
    /** A task the agent runs: what it will report, the steps left, whether a cancel reached it. */
    static final class Held {
        final AgentCalls.Claimed claimed;
        final TaskStatus outcome;
        int stepsLeft;
        int nextStep;
        boolean cancel;

        Held(AgentCalls.Claimed claimed, TaskStatus outcome, int steps) {
            this.claimed = claimed;
            this.outcome = outcome;
            this.stepsLeft = steps;
        }

        String label() {
            return "job #" + claimed.jobNumber() + " node " + claimed.task().nodeIndex();
        }
    }

    final int slot;
    int incarnation;
    UUID id;
    Held held;
    Instant silentUntil;

    SimAgent(int slot) {
        this.slot = slot;
    }

    String name() {
        return "a" + slot + (incarnation == 0 ? "" : "'".repeat(incarnation));
    }

    boolean silent(Instant now) {
        return silentUntil != null && now.isBefore(silentUntil);
    }
}
