package dev.gantry.server.plan;

import java.time.OffsetDateTime;
import java.util.UUID;

/**
 * One row of {@code gantry.job} as the planner inserts it, a new job {@code blocked} on attempt 1; {@link PlanDao}
 * binds its components by name. The JSON columns are JSON text.
 *
 * @param requires {@code {"upstream name": ["success", …]}}
 * @param executor {@code {"type": "docker", "image": "cimg/node:20.11"}}, null for approvals and no-ops
 * @param spec     {@code PlanJson.writeJob} of the job: what its agent runs
 */
// Public only because JDBI's @BindMethods reads the accessors of public types; nothing outside this package uses it.
public record JobRow(UUID id, UUID workflowId, UUID projectId, long number, String name, String type, String status,
              String requires, String resourceClass, Integer cpu, Integer memoryMb, String executor, int parallelism,
              String spec, OffsetDateTime createdAt) {
}
