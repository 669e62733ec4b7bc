package dev.gantry.server.workflow;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * One job of a workflow as its list shows it.
 *
 * @param type     build, approval or no-op
 * @param attempt  1, or 2 for the automatic retry after a lost agent (a second row with the same name)
 * @param requires upstream job name to the statuses that let this one start
 */
record WorkflowJob(UUID id, String name, String type, String status, long number, int attempt,
                   Map<String, List<String>> requires, Instant startedAt, Instant stoppedAt) {
    WorkflowJob {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(name, "name");
        requires = Map.copyOf(requires);
    }
}
