package dev.gantry.server.workflow;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.gantry.server.auth.ActorIds;
import dev.gantry.server.http.Json;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * One job of {@code GET /api/v2/workflow/{id}/job}, as CircleCI's API v2 shows it. Approval jobs have no
 * {@code job_number} (as on CircleCI, though Gantry numbers them) and have {@code approval_request_id}, their own id;
 * other jobs have no {@code approval_request_id}. {@code approved_by} (an approved approval job) and
 * {@code canceled_by} (a job canceled through the API, by itself or with its workflow) are actor ids
 * ({@link ActorIds}), absent otherwise.
 *
 * @param dependencies the ids of the jobs this one requires, each the latest attempt of its name
 * @param requires     the same ids, each with the statuses that let this job start
 */
record WorkflowJobJson(UUID id, String name, String type, String status,
                       @JsonInclude(JsonInclude.Include.NON_NULL) Long jobNumber, List<UUID> dependencies,
                       Map<UUID, List<String>> requires, String startedAt, String stoppedAt,
                       @JsonInclude(JsonInclude.Include.NON_NULL) UUID approvalRequestId, String projectSlug,
                       @JsonInclude(JsonInclude.Include.NON_NULL) UUID approvedBy,
                       @JsonInclude(JsonInclude.Include.NON_NULL) UUID canceledBy) {
    static final String APPROVAL = "approval";

    /** @param latest the id of the latest attempt of each job name of the workflow */
    static WorkflowJobJson of(WorkflowJob job, Map<String, UUID> latest, String projectSlug) {
        Map<UUID, List<String>> requires = new LinkedHashMap<>();
        job.requires().forEach((name, statuses) -> {
            UUID upstream = latest.get(name);
            if (upstream != null) {
                requires.put(upstream, statuses);
            }
        });
        boolean approval = APPROVAL.equals(job.type());
        return new WorkflowJobJson(job.id(), job.name(), job.type(), job.status(), approval ? null : job.number(),
                List.copyOf(requires.keySet()), requires, time(job.startedAt()), time(job.stoppedAt()),
                approval ? job.id() : null, projectSlug, actor(job.approvedBy()), actor(job.canceledBy()));
    }

    private static UUID actor(String login) {
        return login == null ? null : ActorIds.of(login);
    }

    private static String time(Instant instant) {
        return instant == null ? null : Json.time(instant);
    }
}
