package dev.gantry.server.agent;

import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Handle;

/**
 * Chooses which queued task an agent gets: the seam where the placement policy plugs into the claim
 * ({@link dev.gantry.server.fleet.SchedulerMatcher}). The choice runs inside the claim's transaction and must lock the
 * row it returns (so that no concurrent claim gets it too) and skip rows others hold locked. The claim then moves
 * that task to {@code running}; a matcher changes nothing itself. Implementations are thread-safe.
 */
public interface TaskMatcher {
    /** The agent asking: its id and what it has free now. */
    record Claimant(UUID agentId, FreeResources free) {
    }

    /**
     * A queued task for {@code claimant}, locked in {@code h}'s transaction, whose job is queued or running, not being
     * canceled, and fits what the claimant has free; or empty when it gets none now.
     */
    Optional<TaskKey> pick(Handle h, Claimant claimant);
}
