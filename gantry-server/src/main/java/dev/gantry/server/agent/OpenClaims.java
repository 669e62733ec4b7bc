package dev.gantry.server.agent;

import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The agents with a claim open in this process: live whenever they were last seen, since an idle agent's long poll
 * writes nothing for up to the poll timeout. The scheduler's snapshot counts them in. Thread-safe.
 */
public final class OpenClaims {
    private final Map<UUID, Integer> open = new ConcurrentHashMap<>();

    void opened(UUID agentId) {
        open.merge(agentId, 1, Integer::sum);
    }

    void closed(UUID agentId) {
        open.computeIfPresent(agentId, (id, count) -> count == 1 ? null : count - 1);
    }

    /** The agents with a claim open now. */
    public Set<UUID> agents() {
        return Set.copyOf(open.keySet());
    }
}
