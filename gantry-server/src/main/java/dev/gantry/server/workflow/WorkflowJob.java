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
 * @param requires   upstream job name to the statuses that let this one start
 * @param approvedBy the login of who approved an approval job, or null
 * @param canceledBy the login of who canceled a canceled job (itself or its workflow), or null
 */
record WorkflowJob(UUID id, String name, String type, String status, long number, int attempt,
                   Map<String, List<String>> requires, Instant startedAt, Instant stoppedAt, String approvedBy,
                   String canceledBy) {
    WorkflowJob {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(name, "name");
        requires = Map.copyOf(requires);
    }
}
