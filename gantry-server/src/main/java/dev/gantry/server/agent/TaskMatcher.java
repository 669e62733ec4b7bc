package dev.gantry.server.agent;

import java.util.Optional;
import org.jdbi.v3.core.Handle;

/**
 * Chooses which queued task an agent gets: the seam where a placement policy plugs into the claim. The choice runs
 * inside the claim's transaction and must lock the row it returns (so that no concurrent claim gets it too) and skip
 * rows others hold locked. The claim then moves that task to {@code running}; a matcher changes nothing itself.
 *
 * <p>{@link FifoMatcher} is today's policy; the scheduler's bin-packing replaces it. Implementations are thread-safe.
 */
public interface TaskMatcher {
    /**
     * A queued task, locked in {@code h}'s transaction, whose job is queued or running, not being canceled, and fits
     * {@code free}; or empty when none does.
     */
    Optional<TaskKey> pick(Handle h, FreeResources free);
}
